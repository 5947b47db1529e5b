#include "shim/coll/tuw_tree.h"

#include <algorithm>

namespace colltune::shim::tuw {
namespace {

// What a fixed root knows of its subcube.
struct Side {
  int64_t bytes = 0;
  int64_t gather_root = -1;  // -1: nobody holds data any more
  int64_t has_root = 0;
  int64_t direct = 0;        // subcubes inside that left the tree
};

enum Kind : int64_t { kStay = 0, kReceive = 1, kSend = 2, kLeave = 3 };

// What a fixed root tells its gather root after a merge.
struct Notice {
  int64_t kind = kStay;
  int64_t peer = -1;
  int64_t bytes = 0;
  int64_t lo = 0, hi = 0;
  int64_t direct = 0;  // subcubes that left the merged cube so far
};

struct Range {
  int lo, hi;
};

Range CubeOf(int index, int d, int size) {
  const int64_t lo = static_cast<int64_t>(index) << d;
  const int64_t hi = std::min<int64_t>(((static_cast<int64_t>(index) + 1) << d) - 1, size - 1);
  return {static_cast<int>(lo), static_cast<int>(hi)};
}

// The merge both fixed roots compute alike. `to_left` and `to_right` are the
// notices for the sides' gather roots as they were before the merge
// (`left_target`, `right_target`; -1: none).
void Merge(Side left, Side right, Range lr, Range rr, int root,
           int64_t threshold, Side* merged, Notice* to_left, Notice* to_right,
           int64_t* left_target, int64_t* right_target) {
  *left_target = left.gather_root;
  *right_target = right.gather_root;
  *to_left = Notice{};
  *to_right = Notice{};
  auto leave = [&](Side* s, Notice* n, Range r) {
    if (s->gather_root >= 0 && !s->has_root && s->bytes > threshold) {
      *n = Notice{kLeave, root, s->bytes, r.lo, r.hi, 0};
      s->gather_root = -1;
      s->bytes = 0;
      s->direct += 1;
    }
  };
  // A side merging into the root's cube joins the root directly anyway.
  if (!left.has_root && !right.has_root) {
    leave(&left, to_left, lr);
    leave(&right, to_right, rr);
  }
  merged->bytes = left.bytes + right.bytes;
  merged->has_root = left.has_root || right.has_root;
  merged->direct = left.direct + right.direct;
  if (left.gather_root < 0 || right.gather_root < 0) {
    merged->gather_root = left.gather_root >= 0 ? left.gather_root : right.gather_root;
  } else {
    const bool right_wins = right.has_root || (!left.has_root && right.bytes >= left.bytes);
    const Side& win = right_wins ? right : left;
    const Side& lose = right_wins ? left : right;
    const Range lose_range = right_wins ? lr : rr;
    Notice* win_notice = right_wins ? to_right : to_left;
    Notice* lose_notice = right_wins ? to_left : to_right;
    *win_notice = Notice{kReceive, lose.gather_root, lose.bytes, lose_range.lo,
                         lose_range.hi, 0};
    *lose_notice = Notice{kSend, win.gather_root, lose.bytes, 0, 0, 0};
    merged->gather_root = win.gather_root;
  }
  to_left->direct = merged->direct;
  to_right->direct = merged->direct;
}

// A gather root takes its notice.
void Apply(const Notice& n, int root, bool* active, Plan* plan) {
  switch (n.kind) {
    case kReceive:
      plan->pieces.push_back(Piece{static_cast<int>(n.peer), static_cast<int>(n.lo),
                                   static_cast<int>(n.hi), n.bytes});
      plan->held += n.bytes;
      break;
    case kSend:
      plan->parent = static_cast<int>(n.peer);
      *active = false;
      break;
    case kLeave:
      plan->parent = root;
      plan->direct = true;
      plan->lo = static_cast<int>(n.lo);
      plan->hi = static_cast<int>(n.hi);
      *active = false;
      break;
    default:
      break;
  }
}

// Plans are reused call after call (thread-local in the algorithms), so their
// vectors keep their capacity: a call allocates nothing once warm.
void Start(int rank, int64_t my_bytes, Plan* plan) {
  plan->parent = -1;
  plan->direct = false;
  plan->lo = plan->hi = 0;
  plan->pieces.clear();
  plan->leavers.clear();
  plan->held = my_bytes;
  plan->pieces.push_back(Piece{rank, rank, rank, my_bytes});
}

void Finish(Plan* plan) {
  std::sort(plan->pieces.begin(), plan->pieces.end(),
            [](const Piece& a, const Piece& b) { return a.lo < b.lo; });
}

// Runs the construction for every process locally, from all block sizes, and
// returns the plan of `who` (and, for the root, every subcube that left).
template <class SizeOf>
void Simulate(int who, int size, int root, SizeOf size_of, int64_t threshold,
              Plan* plan) {
  Start(who, size_of(who), plan);
  bool active = true;
  // One array, merged in place: cube b of round d+1 lands in slot b, which
  // round d no longer needs.
  thread_local std::vector<Side> sides;
  sides.resize(size);
  for (int i = 0; i < size; ++i) sides[i] = Side{size_of(i), i, i == root, 0};
  int cubes = size;
  for (int d = 0; (int64_t{1} << d) < size; ++d) {
    for (int b = 0; 2 * b < cubes; ++b) {
      if (2 * b + 1 >= cubes) {
        sides[b] = sides[2 * b];
        continue;
      }
      Notice nl, nr;
      int64_t tl, tr;
      Side merged;
      Merge(sides[2 * b], sides[2 * b + 1], CubeOf(2 * b, d, size),
            CubeOf(2 * b + 1, d, size), root, threshold, &merged, &nl, &nr, &tl, &tr);
      sides[b] = merged;
      if (who == root) {
        if (nl.kind == kLeave) plan->leavers.push_back(Direct{static_cast<int>(tl),
                                                             static_cast<int>(nl.lo),
                                                             static_cast<int>(nl.hi)});
        if (nr.kind == kLeave) plan->leavers.push_back(Direct{static_cast<int>(tr),
                                                             static_cast<int>(nr.lo),
                                                             static_cast<int>(nr.hi)});
      }
      if (active && tl == who) Apply(nl, root, &active, plan);
      if (active && tr == who) Apply(nr, root, &active, plan);
    }
    cubes = (cubes + 1) / 2;
  }
  Finish(plan);
}

}  // namespace

int Build(MPI_Comm comm, int rank, int size, int root, int64_t my_bytes,
          const int64_t* all_bytes, int64_t threshold, Plan* plan) {
  if (rank == root) {
    // MPI_Gatherv's root knows every block size: it works out the whole
    // tree alone, and no merge with its subcube needs a message.
    Simulate(rank, size, root, [&](int i) { return all_bytes[i]; }, threshold, plan);
    return MPI_SUCCESS;
  }
  Start(rank, my_bytes, plan);
  bool active = true;
  Side mine{my_bytes, rank, 0, 0};
  const auto holds_root = [root](Range r) { return r.lo <= root && root <= r.hi; };
  for (int d = 0; (int64_t{1} << d) < size; ++d) {
    const int index = rank >> d;
    const int partner = index ^ 1;
    if ((static_cast<int64_t>(partner) << d) >= size) continue;  // no partner
    const Range cube = CubeOf(index, d, size);
    const Range other = CubeOf(partner, d, size);
    const int fixed_root = cube.hi;
    if (holds_root(cube)) break;  // merged into the root's subcube: done
    if (rank == fixed_root) {
      Notice notice;
      int64_t target = mine.gather_root;
      if (holds_root(other)) {
        // The root's subcube always wins: no exchange needed.
        notice = Notice{kSend, root, mine.bytes, 0, 0, 0};
      } else {
        Side theirs;
        int rc = PMPI_Sendrecv(&mine, 4, MPI_INT64_T, other.hi, kTreeTag, &theirs, 4,
                               MPI_INT64_T, other.hi, kTreeTag, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return rc;
        const bool left = (index & 1) == 0;
        Side merged;
        Notice nl, nr;
        int64_t tl, tr;
        Merge(left ? mine : theirs, left ? theirs : mine, left ? cube : other,
              left ? other : cube, root, threshold, &merged, &nl, &nr, &tl, &tr);
        notice = left ? nl : nr;
        target = left ? tl : tr;
        if (!left) mine = merged;  // the right side's fixed root goes on
      }
      if (target == rank) {
        Apply(notice, root, &active, plan);
      } else if (target >= 0) {
        const int rc = PMPI_Send(&notice, 6, MPI_INT64_T, static_cast<int>(target),
                                 kTreeTag, comm);
        if (rc != MPI_SUCCESS) return rc;
      }
    } else if (active) {
      Notice notice;
      const int rc = PMPI_Recv(&notice, 6, MPI_INT64_T, fixed_root, kTreeTag, comm,
                               MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return rc;
      Apply(notice, root, &active, plan);
    }
  }
  Finish(plan);
  return MPI_SUCCESS;
}

void BuildLocal(int rank, int size, int root, int64_t bytes, int64_t threshold,
                Plan* plan) {
  Simulate(rank, size, root, [bytes](int) { return bytes; }, threshold, plan);
}

void Owners(const Plan& root_plan, int root, std::vector<int>* owner) {
  const std::vector<Direct>& direct = root_plan.leavers;
  for (const Piece& piece : root_plan.pieces) {
    for (int k = piece.lo; k <= piece.hi; ++k) (*owner)[k] = piece.peer;
  }
  (*owner)[root] = root;
  // Subcubes that left form a laminar family: the smallest one holding a
  // rank carries its block, so larger ones are laid down first.
  std::vector<Direct> sorted = direct;
  std::sort(sorted.begin(), sorted.end(), [](const Direct& a, const Direct& b) {
    return a.hi - a.lo > b.hi - b.lo;
  });
  for (const Direct& d : sorted) {
    for (int k = d.lo; k <= d.hi; ++k) (*owner)[k] = d.peer;
  }
}

}  // namespace colltune::shim::tuw
