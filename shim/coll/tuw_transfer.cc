#include "shim/coll/tuw_transfer.h"

#include <climits>
#include <cstddef>
#include <vector>

namespace colltune::shim::tuw {
namespace {

// The root's messages, one per peer that sends (gather) or receives
// (scatter) blocks: which ranks' blocks each carries, in rank order.
struct RootMessage {
  int peer;
  std::vector<int> ranks;
};

// A message slot of `messages`, reused: its rank list keeps its capacity.
RootMessage& Slot(std::vector<RootMessage>* messages, int* used, int peer) {
  if (*used == static_cast<int>(messages->size())) messages->emplace_back();
  RootMessage& m = (*messages)[(*used)++];
  m.peer = peer;
  m.ranks.clear();
  return m;
}

// The root's messages, from its plan; returns how many of `messages` hold
// them. Without subcubes that left the tree (small data) they are the
// children's pieces, each a range of ranks.
int RootMessages(const Plan& plan, int size, int root, std::vector<RootMessage>* messages) {
  int used = 0;
  if (plan.leavers.empty()) {
    for (const Piece& piece : plan.pieces) {
      if (piece.peer == root) continue;
      RootMessage& m = Slot(messages, &used, piece.peer);
      for (int k = piece.lo; k <= piece.hi; ++k) m.ranks.push_back(k);
    }
    return used;
  }
  std::vector<int> owner(size, -1);
  Owners(plan, root, &owner);
  std::vector<int> index(size, -1);
  for (int k = 0; k < size; ++k) {
    const int peer = owner[k];
    if (peer < 0 || peer == root) continue;
    if (index[peer] < 0) {
      index[peer] = used;
      Slot(messages, &used, peer);
    }
    (*messages)[index[peer]].ranks.push_back(k);
  }
  return used;
}

// The datatype (and start address and count) describing `ranks`' blocks in
// the root's buffer. *made is true when the caller must free *type.
int RootType(const RootBuffer& at, const Layout& layout, const std::vector<int>& ranks,
             void** start, int* count, MPI_Datatype* type, bool* made) {
  *made = false;
  int64_t total = 0;
  bool contiguous = true;
  for (size_t j = 0; j < ranks.size(); ++j) {
    total += at.Count(ranks[j]);
    if (j > 0 && at.Displ(ranks[j]) != at.Displ(ranks[j - 1]) + at.Count(ranks[j - 1])) {
      contiguous = false;
    }
  }
  if (contiguous && total <= INT_MAX) {
    *start = static_cast<char*>(at.buf) + at.Displ(ranks[0]) * layout.extent;
    *count = static_cast<int>(total);
    *type = at.type;
    return MPI_SUCCESS;
  }
  std::vector<int> lengths(ranks.size());
  std::vector<MPI_Aint> displs(ranks.size());
  for (size_t j = 0; j < ranks.size(); ++j) {
    lengths[j] = at.Count(ranks[j]);
    displs[j] = static_cast<MPI_Aint>(at.Displ(ranks[j]) * layout.extent);
  }
  int rc = PMPI_Type_create_hindexed(static_cast<int>(ranks.size()), lengths.data(),
                                     displs.data(), at.type, type);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Type_commit(type);
  if (rc != MPI_SUCCESS) {
    PMPI_Type_free(type);
    return rc;
  }
  *made = true;
  *start = at.buf;
  *count = 1;
  return MPI_SUCCESS;
}

// Where one root message's blocks lie in the root's buffer (RootType), and
// how many elements it carries. A datatype made for it goes to `made`, which
// the caller frees once the message is complete.
struct Target {
  void* start = nullptr;
  int count = 0;
  MPI_Datatype type;
  int64_t elements = 0;
};
int TargetOf(const RootBuffer& at, const Layout& layout, const std::vector<int>& ranks,
             std::vector<MPI_Datatype>* made_types, Target* t) {
  t->type = at.type;
  bool made = false;
  const int rc = RootType(at, layout, ranks, &t->start, &t->count, &t->type, &made);
  if (rc != MPI_SUCCESS) return rc;
  if (made) made_types->push_back(t->type);
  t->elements = 0;
  for (int k : ranks) t->elements += at.Count(k);
  return MPI_SUCCESS;
}

// Receives a message sent as MPI_PACKED into `count` elements of `type` at
// `buf`. MPICH 4.0 truncates a message of contiguous bytes received into a
// datatype with gaps once it is larger than some ten kilobytes (its own
// MPI_Gather and MPI_Scatter trees hit this too), so such a receive goes
// through scratch: the bytes arrive as MPI_PACKED and are unpacked. Only
// messages from processes that forward several blocks are packed, and those
// hold at most ScratchFor(threshold) bytes, the bound Need() states.
int RecvPacked(void* buf, int count, MPI_Datatype type, int64_t bytes, int peer,
               MPI_Comm comm, ScratchPool* scratch) {
  if (bytes > INT_MAX) return MPI_ERR_COUNT;
  ScratchPool::Lease lease = scratch->Acquire(static_cast<uint64_t>(bytes));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  int rc = PMPI_Recv(lease.data(), static_cast<int>(bytes), MPI_PACKED, peer, kDataTag,
                     comm, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  int position = 0;
  return PMPI_Unpack(lease.data(), static_cast<int>(bytes), &position, buf, count, type,
                     comm);
}

// The root's part: one non-blocking operation per message, its own block
// copied locally, everything completed before the types are freed. Gathering
// into a datatype with gaps, messages of several blocks (sent packed) are
// received one after the other through scratch (RecvPacked), after the
// single-block ones are posted.
int AtRoot(const Plan& plan, MPI_Comm comm, int size, int root, const Block& own,
           const RootBuffer& at, bool gather, ScratchPool* scratch) {
  thread_local std::vector<RootMessage> messages;
  const int count_messages = RootMessages(plan, size, root, &messages);
  Layout layout;
  int rc = GetLayout(at.type, &layout);
  if (rc != MPI_SUCCESS) return rc;
  thread_local std::vector<MPI_Request> requests;
  thread_local std::vector<MPI_Datatype> made_types;
  requests.clear();
  made_types.clear();
  const bool stage = gather && !layout.dense;
  for (int i = 0; i < count_messages; ++i) {
    const RootMessage& m = messages[i];
    if (stage && m.ranks.size() > 1) continue;  // received below
    Target t;
    rc = TargetOf(at, layout, m.ranks, &made_types, &t);
    if (rc != MPI_SUCCESS) break;
    if (t.elements == 0) continue;  // the peer knows its blocks are empty too
    MPI_Request request;
    rc = gather ? PMPI_Irecv(t.start, t.count, t.type, m.peer, kDataTag, comm, &request)
                : PMPI_Isend(t.start, t.count, t.type, m.peer, kDataTag, comm, &request);
    if (rc != MPI_SUCCESS) break;
    requests.push_back(request);
  }
  if (rc == MPI_SUCCESS && own.buf != nullptr) {
    char* mine = static_cast<char*>(at.buf) + at.Displ(root) * layout.extent;
    if (own.type == at.type && own.count == at.Count(root) && layout.dense) {
      // The common case: a plain copy (src and dst never overlap: MPI).
      if (gather) {
        rc = CopyTyped(own.buf, mine, own.count, own.type, layout, nullptr);
      } else {
        rc = CopyTyped(mine, const_cast<void*>(own.buf), own.count, own.type, layout,
                       nullptr);
      }
    } else rc = gather ? PMPI_Sendrecv(own.buf, own.count, own.type, root, kDataTag, mine,
                                at.Count(root), at.type, root, kDataTag, comm,
                                MPI_STATUS_IGNORE)
                : PMPI_Sendrecv(mine, at.Count(root), at.type, root, kDataTag,
                                const_cast<void*>(own.buf), own.count, own.type, root,
                                kDataTag, comm, MPI_STATUS_IGNORE);
  }
  for (int i = 0; rc == MPI_SUCCESS && stage && i < count_messages; ++i) {
    const RootMessage& m = messages[i];
    if (m.ranks.size() <= 1) continue;
    Target t;
    rc = TargetOf(at, layout, m.ranks, &made_types, &t);
    if (rc != MPI_SUCCESS || t.elements == 0) continue;
    rc = RecvPacked(t.start, t.count, t.type, t.elements * layout.size, m.peer, comm,
                    scratch);
  }
  const int wait = requests.empty()
                       ? MPI_SUCCESS
                       : PMPI_Waitall(static_cast<int>(requests.size()),
                                      requests.data(), MPI_STATUSES_IGNORE);
  for (MPI_Datatype& t : made_types) PMPI_Type_free(&t);
  return rc != MPI_SUCCESS ? rc : wait;
}

// Gathers along `plan`: children's receives posted at once, one send.
int GatherAlong(const Plan& plan, MPI_Comm comm, int rank, int size, int root,
                const Block& own, const RootBuffer& at_root, ScratchPool* scratch) {
  if (rank == root) return AtRoot(plan, comm, size, root, own, at_root, true, scratch);
  if (plan.held == 0) return MPI_SUCCESS;
  int rc = MPI_SUCCESS;
  if (plan.pieces.size() == 1) {
    return PMPI_Send(own.buf, own.count, own.type, plan.parent, kDataTag, comm);
  }
  if (plan.held > INT_MAX) return MPI_ERR_COUNT;
  ScratchPool::Lease lease = scratch->Acquire(static_cast<uint64_t>(plan.held));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  char* held = static_cast<char*>(lease.data());
  // Pieces are in rank order and packed back to back; the requests vector
  // keeps its capacity, so a warm call allocates nothing.
  thread_local std::vector<MPI_Request> requests;
  requests.clear();
  char* at = held;
  for (const Piece& piece : plan.pieces) {
    if (piece.peer == rank) {
      rc = PackBlock(own, at);
    } else if (piece.bytes > 0) {
      MPI_Request request;
      rc = PMPI_Irecv(at, static_cast<int>(piece.bytes), MPI_PACKED, piece.peer,
                      kDataTag, comm, &request);
      if (rc == MPI_SUCCESS) requests.push_back(request);
    }
    if (rc != MPI_SUCCESS) break;
    at += piece.bytes;
  }
  const int wait = requests.empty()
                       ? MPI_SUCCESS
                       : PMPI_Waitall(static_cast<int>(requests.size()),
                                      requests.data(), MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  if (wait != MPI_SUCCESS) return wait;
  return PMPI_Send(held, static_cast<int>(plan.held), MPI_PACKED, plan.parent, kDataTag,
                   comm);
}

// Scatters along `plan`: one receive, then the children's sends.
int ScatterAlong(const Plan& plan, MPI_Comm comm, int rank, int size, int root,
                 const Block& own, const RootBuffer& at_root, ScratchPool* scratch) {
  if (rank == root) return AtRoot(plan, comm, size, root, own, at_root, false, scratch);
  if (plan.held == 0) return MPI_SUCCESS;
  int rc = MPI_SUCCESS;
  void* mine = const_cast<void*>(own.buf);
  if (plan.pieces.size() == 1) {
    // From the root the block comes typed; from a process forwarding
    // several blocks, packed (RecvPacked for a datatype with gaps).
    Layout layout;
    rc = GetLayout(own.type, &layout);
    if (rc != MPI_SUCCESS) return rc;
    if (plan.parent != root && !layout.dense) {
      return RecvPacked(mine, own.count, own.type, plan.held, plan.parent, comm, scratch);
    }
    return PMPI_Recv(mine, own.count, own.type, plan.parent, kDataTag, comm,
                     MPI_STATUS_IGNORE);
  }
  if (plan.held > INT_MAX) return MPI_ERR_COUNT;
  ScratchPool::Lease lease = scratch->Acquire(static_cast<uint64_t>(plan.held));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  char* held = static_cast<char*>(lease.data());
  rc = PMPI_Recv(held, static_cast<int>(plan.held), MPI_PACKED, plan.parent, kDataTag,
                 comm, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  thread_local std::vector<MPI_Request> requests;
  requests.clear();
  char* at = held;
  for (const Piece& piece : plan.pieces) {
    if (piece.peer == rank) {
      Layout layout;
      rc = GetLayout(own.type, &layout);
      if (rc == MPI_SUCCESS) rc = UnpackBytes(at, mine, own.count, own.type, layout);
    } else if (piece.bytes > 0) {
      MPI_Request request;
      rc = PMPI_Isend(at, static_cast<int>(piece.bytes), MPI_PACKED, piece.peer,
                      kDataTag, comm, &request);
      if (rc == MPI_SUCCESS) requests.push_back(request);
    }
    if (rc != MPI_SUCCESS) break;
    at += piece.bytes;
  }
  const int wait = requests.empty()
                       ? MPI_SUCCESS
                       : PMPI_Waitall(static_cast<int>(requests.size()),
                                      requests.data(), MPI_STATUSES_IGNORE);
  return rc != MPI_SUCCESS ? rc : wait;
}

// The call's tree, in a thread-local plan reused call after call (nothing is
// allocated once warm), and the private communicator.
int Prepare(const CollEnv& env, const Call& call, MPI_Comm* comm, const Plan** plan) {
  thread_local Plan reused;
  thread_local std::vector<int64_t> all;  // the root knows every block size
  int rc = P2PComm(env, comm);
  if (rc != MPI_SUCCESS) return rc;
  if (call.my_bytes < 0) return MPI_ERR_TYPE;
  const int64_t threshold = ThresholdFor(env.mem_budget);
  *plan = &reused;
  if (call.regular) {
    BuildLocal(env.rank, env.size, call.root, call.my_bytes, threshold, &reused);
    return MPI_SUCCESS;
  }
  if (env.rank == call.root) {
    const int64_t type_size = TypeSize(call.at_root.type);
    if (type_size < 0) return MPI_ERR_TYPE;
    all.resize(env.size);
    for (int i = 0; i < env.size; ++i) all[i] = call.at_root.Count(i) * type_size;
  }
  return Build(*comm, env.rank, env.size, call.root, call.my_bytes, all.data(), threshold,
               &reused);
}

}  // namespace

std::optional<uint64_t> Need(int root, const CollEnv& env) {
  if (!RootInRange(root, env) || env.p2p == nullptr) return std::nullopt;
  return ScratchFor(ThresholdFor(env.mem_budget));
}

int Gather(const CollEnv& env, const Call& call) {
  MPI_Comm comm;
  const Plan* plan;
  const int rc = Prepare(env, call, &comm, &plan);
  if (rc != MPI_SUCCESS) return rc;
  return GatherAlong(*plan, comm, env.rank, env.size, call.root, call.own, call.at_root,
                     env.scratch);
}

int Scatter(const CollEnv& env, const Call& call) {
  MPI_Comm comm;
  const Plan* plan;
  const int rc = Prepare(env, call, &comm, &plan);
  if (rc != MPI_SUCCESS) return rc;
  return ScatterAlong(*plan, comm, env.rank, env.size, call.root, call.own, call.at_root,
                      env.scratch);
}

}  // namespace colltune::shim::tuw
