// Differential test of the shim: for seeded random cases of one collective,
// runs the MPI library's own implementation (PMPI_*) and the intercepted call
// (MPI_*, which the shim dispatches to whatever COLLTUNE_FORCE or the table
// chose), from identical buffers, and compares every byte of every buffer on
// every rank (gaps of non-contiguous layouts and guard zones included, so a
// stray write fails too).
//
//   mpirun -np 4 -x LD_PRELOAD=libcolltune.so \
//       -x COLLTUNE_FORCE=allreduce=allreduce_as_reduce_bcast \
//       differential --collective allreduce --cases 200 --seed 1
//
// Each case is derived from (seed, case index) only, identically on every
// rank. A failure prints one line with everything needed to reproduce it;
// the exit code is the number of failed cases (capped at 100).
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------- datatypes

struct TypeSpec {
  const char* name;
  MPI_Datatype type;
  int ints;  // 32-bit integers per element (the type signature)
  // Byte offsets of those ints from the element's address, in typemap
  // order, and the extent: what a user operation needs to walk the layout.
  std::vector<int> offsets;
  MPI_Aint extent;
  bool predefined;
};

std::vector<TypeSpec> g_types;  // filled once in main, same order everywhere

MPI_Datatype Commit(MPI_Datatype t) {
  MPI_Type_commit(&t);
  return t;
}

void MakeTypes() {
  MPI_Datatype t;
  g_types.push_back({"int", MPI_INT, 1, {0}, 4, true});
  // Two ints with a two-int gap: {int, _, _, int}.
  MPI_Type_vector(2, 1, 3, MPI_INT, &t);
  g_types.push_back({"vector", Commit(t), 2, {0, 12}, 16, false});
  // Three ints, packed out of memory order: the block at 3 comes first.
  int lens[2] = {1, 2};
  int displs[2] = {3, 0};
  MPI_Type_indexed(2, lens, displs, MPI_INT, &t);
  g_types.push_back({"indexed", Commit(t), 3, {12, 0, 4}, 16, false});
  // One int at byte 8 of a 16-byte extent whose lower bound is -4.
  MPI_Datatype inner;
  MPI_Aint disp = 8;
  int one = 1;
  MPI_Datatype base = MPI_INT;
  MPI_Type_create_struct(1, &one, &disp, &base, &inner);
  MPI_Type_create_resized(inner, -4, 16, &t);
  MPI_Type_free(&inner);
  g_types.push_back({"resized", Commit(t), 1, {8}, 16, false});
  // A predefined pair type, for MPI_MINLOC and the affine user operation.
  g_types.push_back({"2int", MPI_2INT, 2, {0, 4}, 8, true});
}

const TypeSpec* TypeOfHandle(MPI_Datatype t) {
  for (const TypeSpec& s : g_types) {
    if (s.type == t) return &s;
  }
  return nullptr;
}

const TypeSpec& TypeNamed(const char* name) {
  for (const TypeSpec& t : g_types) {
    if (strcmp(t.name, name) == 0) return t;
  }
  abort();
}

// ------------------------------------------------------------------ buffers

constexpr int kGuard = 64;
constexpr unsigned char kSentinel = 0xA5;

// Memory for `count` elements of a type, with guard zones on both sides.
struct Buffer {
  std::vector<unsigned char> mem;
  char* base = nullptr;  // the pointer given to MPI

  void Allocate(const TypeSpec& t, int64_t count) {
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_get_extent(t.type, &lb, &extent);
    MPI_Type_get_true_extent(t.type, &true_lb, &true_extent);
    const int64_t span = count > 0 ? (count - 1) * extent + true_extent : 0;
    mem.assign(static_cast<size_t>(span + 2 * kGuard), kSentinel);
    base = reinterpret_cast<char*>(mem.data()) + kGuard - true_lb;
  }
  // Writes `values` (count * ints of them) into the typed layout.
  void Fill(const TypeSpec& t, int64_t count, const std::vector<int32_t>& values) {
    if (count == 0) return;
    int position = 0;
    MPI_Unpack(values.data(), static_cast<int>(values.size() * 4), &position,
               base, static_cast<int>(count), t.type, MPI_COMM_SELF);
  }
};

std::vector<int32_t> Values(std::mt19937_64& rng, int64_t n, int range) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  std::uniform_int_distribution<int32_t> d(-range, range);
  for (auto& x : v) x = d(rng);
  return v;
}

// ---------------------------------------------------------------- operations

// User operations receive data in the datatype's own layout; they walk it
// with the offsets of our TypeSpec. A datatype they do not know means the
// shim handed them something else than the application's datatype: abort.
uint32_t* IntAt(void* buf, const TypeSpec& t, int element, int k) {
  return reinterpret_cast<uint32_t*>(static_cast<char*>(buf) +
                                     element * t.extent + t.offsets[k]);
}

const TypeSpec& KnownType(MPI_Datatype* type) {
  const TypeSpec* t = TypeOfHandle(*type);
  if (t == nullptr) {
    fprintf(stderr, "user operation called with an unknown datatype\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  return *t;
}

// Commutative: wrapping integer addition.
void AddInts(void* in, void* inout, int* len, MPI_Datatype* type) {
  const TypeSpec& t = KnownType(type);
  for (int i = 0; i < *len; ++i) {
    for (int k = 0; k < t.ints; ++k) *IntAt(inout, t, i, k) += *IntAt(in, t, i, k);
  }
}

// Associative but not commutative: composition of affine maps x -> a*x + b
// (wrapping), one map per consecutive pair of ints. inout = in o inout, so a
// reduction in rank order computes f_0 o f_1 o ... o f_{p-1}; any other
// order gives another result.
void ComposeAffine(void* in, void* inout, int* len, MPI_Datatype* type) {
  const TypeSpec& t = KnownType(type);
  for (int i = 0; i < *len; ++i) {
    for (int k = 0; k + 1 < t.ints; k += 2) {
      uint32_t fa = *IntAt(in, t, i, k), fb = *IntAt(in, t, i, k + 1);
      uint32_t* ga = IntAt(inout, t, i, k);
      uint32_t* gb = IntAt(inout, t, i, k + 1);
      const uint32_t a = fa * *ga;
      const uint32_t b = fa * *gb + fb;
      *ga = a;
      *gb = b;
    }
  }
}

struct OpSpec {
  const char* name;
  MPI_Op op;
  // Which datatypes it applies to (MPI defines the predefined operations on
  // predefined types only; MPI_MINLOC on pair types).
  std::function<bool(const TypeSpec&)> accepts;
};
std::vector<OpSpec> g_ops;

void MakeOps() {
  auto plain_int = [](const TypeSpec& t) { return strcmp(t.name, "int") == 0; };
  g_ops.push_back({"sum", MPI_SUM, plain_int});
  g_ops.push_back({"max", MPI_MAX, plain_int});
  g_ops.push_back({"bxor", MPI_BXOR, plain_int});
  g_ops.push_back({"minloc", MPI_MINLOC,
                   [](const TypeSpec& t) { return strcmp(t.name, "2int") == 0; }});
  MPI_Op op;
  MPI_Op_create(&AddInts, 1, &op);
  g_ops.push_back({"user_add", op, [](const TypeSpec&) { return true; }});
  MPI_Op_create(&ComposeAffine, 0, &op);
  g_ops.push_back({"user_affine_noncommutative", op,
                   [](const TypeSpec& t) { return t.ints % 2 == 0; }});
}

// ----------------------------------------------------------------- the cases

struct Comms {
  std::vector<MPI_Comm> comms;
  std::vector<std::string> names;
};

Comms MakeComms() {
  Comms c;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  c.comms.push_back(MPI_COMM_WORLD);
  c.names.push_back("world");
  MPI_Comm dup, split, reversed;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  c.comms.push_back(dup);
  c.names.push_back("dup");
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
  c.comms.push_back(split);
  c.names.push_back("split_parity");
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &reversed);
  c.comms.push_back(reversed);
  c.names.push_back("reversed");
  return c;
}

struct Case {
  int index = 0;
  int comm = 0;
  const TypeSpec* type = nullptr;
  int64_t count = 0;
  int root = 0;
  bool in_place = false;
  bool mixed = false;  // ranks describe the data with different datatypes
  const OpSpec* op = nullptr;

  std::string Describe(const Comms& comms, const char* collective,
                       unsigned long long seed) const {
    char buf[512];
    snprintf(buf, sizeof buf,
             "collective=%s seed=%llu case=%d comm=%s type=%s count=%lld "
             "root=%d in_place=%d mixed=%d op=%s",
             collective, seed, index, comms.names[comm].c_str(), type->name,
             static_cast<long long>(count), root, in_place ? 1 : 0,
             mixed ? 1 : 0, op ? op->name : "-");
    return buf;
  }
};

int64_t PickCount(std::mt19937_64& rng, int64_t max_count) {
  static const int64_t kCounts[] = {0, 1, 2, 3, 5, 7, 11, 13, 97, 1009, 65537};
  std::uniform_int_distribution<int> d(0, sizeof kCounts / sizeof kCounts[0] - 1);
  int64_t c = kCounts[d(rng)];
  return c > max_count ? max_count : c;
}

Case MakeCase(unsigned long long seed, int index, const Comms& comms,
              int64_t max_count, bool reduction) {
  std::mt19937_64 rng(seed * 1000003ULL + static_cast<unsigned long long>(index));
  Case k;
  k.index = index;
  k.comm = std::uniform_int_distribution<int>(0, comms.comms.size() - 1)(rng);
  k.type = &g_types[std::uniform_int_distribution<int>(0, g_types.size() - 1)(rng)];
  k.count = PickCount(rng, max_count);
  k.root = static_cast<int>(rng() % 1024);  // reduced modulo comm size later
  k.in_place = rng() % 2 == 0;
  k.mixed = rng() % 3 == 0;
  k.op = &g_ops[std::uniform_int_distribution<int>(0, g_ops.size() - 1)(rng)];
  if (reduction) {
    // Draw again until operation and datatype fit (user_add fits all).
    while (!k.op->accepts(*k.type)) {
      k.op = &g_ops[std::uniform_int_distribution<int>(0, g_ops.size() - 1)(rng)];
    }
  } else {
    k.op = nullptr;
  }
  return k;
}

// ----------------------------------------------------------- the comparison

// One buffer as the reference and the shim left it. Without a type the whole
// memory is compared (gaps and guards included); with one, only `count`
// packed elements (for results MPI leaves partly undefined).
struct View {
  const Buffer* reference;
  const Buffer* shim;
  const TypeSpec* type = nullptr;
  int64_t count = 0;
};

std::vector<unsigned char> Packed(const View& v, const Buffer& b) {
  std::vector<unsigned char> out(static_cast<size_t>(v.count * v.type->ints * 4));
  if (v.count > 0) {
    int position = 0;
    MPI_Pack(b.base, static_cast<int>(v.count), v.type->type, out.data(),
             static_cast<int>(out.size()), &position, MPI_COMM_SELF);
  }
  return out;
}

struct Result {
  bool ok = true;
  std::string detail;
};

// Compares on this rank, then agrees over the communicator.
Result Compare(MPI_Comm comm, int rc_reference, int rc_shim,
               const std::vector<View>& views) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  char detail[256] = "";
  int ok = 1;
  if (rc_reference != rc_shim) {
    ok = 0;
    snprintf(detail, sizeof detail, "rank %d: return code %d, reference %d",
             rank, rc_shim, rc_reference);
  }
  for (size_t i = 0; ok && i < views.size(); ++i) {
    const View& v = views[i];
    std::vector<unsigned char> a, b;
    if (v.type != nullptr) {
      a = Packed(v, *v.reference);
      b = Packed(v, *v.shim);
    } else {
      a = v.reference->mem;
      b = v.shim->mem;
    }
    if (a.size() != b.size()) {
      ok = 0;
      snprintf(detail, sizeof detail, "rank %d buffer %zu: sizes differ", rank, i);
      break;
    }
    for (size_t j = 0; j < a.size(); ++j) {
      if (a[j] != b[j]) {
        ok = 0;
        snprintf(detail, sizeof detail,
                 "rank %d buffer %zu %s byte %lld: shim 0x%02x, reference 0x%02x",
                 rank, i, v.type ? "packed" : "memory",
                 static_cast<long long>(j) - (v.type ? 0 : kGuard), b[j], a[j]);
        break;
      }
    }
  }
  int all_ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  Result r;
  r.ok = all_ok != 0;
  if (!r.ok) {
    // Bring the first failing rank's detail to rank 0 of the communicator.
    int size;
    MPI_Comm_size(comm, &size);
    std::vector<char> all(static_cast<size_t>(size) * sizeof detail);
    PMPI_Gather(detail, sizeof detail, MPI_CHAR, all.data(), sizeof detail,
                MPI_CHAR, 0, comm);
    if (rank == 0) {
      for (int i = 0; i < size; ++i) {
        if (all[i * sizeof detail] != '\0') {
          r.detail = &all[i * sizeof detail];
          break;
        }
      }
    }
  }
  return r;
}

using Runner = std::function<Result(const Case&, MPI_Comm, std::mt19937_64&)>;

// In mixed cases even ranks keep the case's type and odd ranks describe the
// same ints as plain MPI_INT: type signatures match, layouts differ.
const TypeSpec& RankType(const Case& k, int rank, int64_t* count) {
  if (k.mixed && rank % 2 == 1) {
    *count = k.count * k.type->ints;
    return TypeNamed("int");
  }
  *count = k.count;
  return *k.type;
}

// ------------------------------------------------------- collectives tested
//
// Index 0 is the reference: the library's own collective (PMPI_*), always in
// its out-of-place form, which MPI defines to give the same result as the
// in-place one (so a library bug on an in-place path, such as MPICH 4.0.2's
// crash in MPI_Reduce with MPI_IN_PLACE at a root other than 0, cannot spoil
// the reference). Index 1 is the call through the shim, in place when the
// case says so.

constexpr int kRef = 0, kShim = 1;

Result TestAllreduce(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  const TypeSpec& t = *k.type;
  std::vector<int32_t> input = Values(rng, k.count * t.ints, 1000);
  Buffer send[2], recv[2];
  int rc[2];
  for (int i : {kRef, kShim}) {
    const bool ip = k.in_place && i == kShim;
    send[i].Allocate(t, ip ? 0 : k.count);
    recv[i].Allocate(t, k.count);
    (ip ? recv[i] : send[i]).Fill(t, k.count, input);
    rc[i] = (i == kRef ? PMPI_Allreduce : MPI_Allreduce)(
        ip ? MPI_IN_PLACE : send[i].base, recv[i].base,
        static_cast<int>(k.count), t.type, k.op->op, comm);
  }
  std::vector<View> views = {{&recv[kRef], &recv[kShim]}};
  if (!k.in_place) views.push_back({&send[kRef], &send[kShim]});
  return Compare(comm, rc[kRef], rc[kShim], views);
}

Result TestScan(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  const TypeSpec& t = *k.type;
  std::vector<int32_t> input = Values(rng, k.count * t.ints, 1000);
  Buffer send[2], recv[2];
  int rc[2];
  for (int i : {kRef, kShim}) {
    const bool ip = k.in_place && i == kShim;
    send[i].Allocate(t, ip ? 0 : k.count);
    recv[i].Allocate(t, k.count);
    (ip ? recv[i] : send[i]).Fill(t, k.count, input);
    rc[i] = (i == kRef ? PMPI_Scan : MPI_Scan)(
        ip ? MPI_IN_PLACE : send[i].base, recv[i].base,
        static_cast<int>(k.count), t.type, k.op->op, comm);
  }
  std::vector<View> views = {{&recv[kRef], &recv[kShim]}};
  if (!k.in_place) views.push_back({&send[kRef], &send[kShim]});
  return Compare(comm, rc[kRef], rc[kShim], views);
}

Result TestReduce(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = k.root % size;
  const bool in_place = k.in_place && rank == root;  // the root only
  const TypeSpec& t = *k.type;
  std::vector<int32_t> input = Values(rng, k.count * t.ints, 1000);
  Buffer send[2], recv[2];
  int rc[2];
  for (int i : {kRef, kShim}) {
    const bool ip = in_place && i == kShim;
    send[i].Allocate(t, ip ? 0 : k.count);
    recv[i].Allocate(t, k.count);
    (ip ? recv[i] : send[i]).Fill(t, k.count, input);
    rc[i] = (i == kRef ? PMPI_Reduce : MPI_Reduce)(
        ip ? MPI_IN_PLACE : send[i].base, recv[i].base,
        static_cast<int>(k.count), t.type, k.op->op, root, comm);
  }
  std::vector<View> views = {{&recv[kRef], &recv[kShim]}};
  if (!in_place) views.push_back({&send[kRef], &send[kShim]});
  return Compare(comm, rc[kRef], rc[kShim], views);
}

Result TestReduceScatterBlock(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int size;
  MPI_Comm_size(comm, &size);
  const TypeSpec& t = *k.type;
  std::vector<int32_t> input = Values(rng, k.count * t.ints * size, 1000);
  Buffer send[2], recv[2];
  int rc[2];
  for (int i : {kRef, kShim}) {
    const bool ip = k.in_place && i == kShim;
    send[i].Allocate(t, ip ? 0 : k.count * size);
    recv[i].Allocate(t, ip ? k.count * size : k.count);
    (ip ? recv[i] : send[i]).Fill(t, k.count * size, input);
    rc[i] = (i == kRef ? PMPI_Reduce_scatter_block : MPI_Reduce_scatter_block)(
        ip ? MPI_IN_PLACE : send[i].base, recv[i].base,
        static_cast<int>(k.count), t.type, k.op->op, comm);
  }
  // In place, only the first `count` elements of recvbuf are defined.
  std::vector<View> views;
  if (k.in_place) {
    views.push_back({&recv[kRef], &recv[kShim], &t, k.count});
  } else {
    views.push_back({&recv[kRef], &recv[kShim]});
    views.push_back({&send[kRef], &send[kShim]});
  }
  return Compare(comm, rc[kRef], rc[kShim], views);
}

Result TestBcast(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = k.root % size;
  int64_t count;
  const TypeSpec& t = RankType(k, rank, &count);
  std::vector<int32_t> input = Values(rng, k.count * k.type->ints, 1 << 30);
  Buffer buf[2];
  int rc[2];
  for (int i : {kRef, kShim}) {
    buf[i].Allocate(t, count);
    if (rank == root) buf[i].Fill(t, count, input);
    rc[i] = (i == kRef ? PMPI_Bcast : MPI_Bcast)(
        buf[i].base, static_cast<int>(count), t.type, root, comm);
  }
  return Compare(comm, rc[kRef], rc[kShim], {{&buf[kRef], &buf[kShim]}});
}

// Gather and scatter: one block of `count` elements per rank; in mixed cases
// the root and the other ranks use different datatypes for the same ints.
Result TestGather(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = k.root % size;
  int64_t scount, rcount;
  const TypeSpec& st = RankType(k, rank, &scount);
  const TypeSpec& rt = RankType(k, root, &rcount);
  const bool in_place = k.in_place && rank == root;
  std::vector<int32_t> mine = Values(rng, k.count * k.type->ints, 1 << 30);
  Buffer send[2], recv[2];
  int rc[2];
  for (int i : {kRef, kShim}) {
    const bool ip = in_place && i == kShim;
    send[i].Allocate(st, scount);
    send[i].Fill(st, scount, mine);
    recv[i].Allocate(rt, rank == root ? rcount * size : 0);
    if (ip && rcount > 0) {
      // In place, the root's own block already sits in recvbuf.
      MPI_Aint lb, extent;
      MPI_Type_get_extent(rt.type, &lb, &extent);
      int position = 0;
      MPI_Unpack(mine.data(), static_cast<int>(mine.size() * 4), &position,
                 recv[i].base + extent * rcount * rank, static_cast<int>(rcount),
                 rt.type, MPI_COMM_SELF);
    }
    rc[i] = (i == kRef ? PMPI_Gather : MPI_Gather)(
        ip ? MPI_IN_PLACE : send[i].base, static_cast<int>(scount), st.type,
        recv[i].base, static_cast<int>(rcount), rt.type, root, comm);
  }
  return Compare(comm, rc[kRef], rc[kShim],
                 {{&send[kRef], &send[kShim]}, {&recv[kRef], &recv[kShim]}});
}

Result TestScatter(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = k.root % size;
  int64_t rcount, scount;
  const TypeSpec& rt = RankType(k, rank, &rcount);
  const TypeSpec& st = RankType(k, root, &scount);
  const bool in_place = k.in_place && rank == root;
  std::vector<int32_t> all = Values(rng, k.count * k.type->ints * size, 1 << 30);
  Buffer send[2], recv[2];
  int rc[2];
  for (int i : {kRef, kShim}) {
    const bool ip = in_place && i == kShim;
    send[i].Allocate(st, rank == root ? scount * size : 0);
    if (rank == root) send[i].Fill(st, scount * size, all);
    recv[i].Allocate(rt, ip ? 0 : rcount);
    rc[i] = (i == kRef ? PMPI_Scatter : MPI_Scatter)(
        send[i].base, static_cast<int>(scount), st.type,
        ip ? MPI_IN_PLACE : recv[i].base, static_cast<int>(rcount), rt.type,
        root, comm);
  }
  // In place the root receives nothing: its block stays in sendbuf.
  std::vector<View> views = {{&send[kRef], &send[kShim]}};
  if (!in_place) views.push_back({&recv[kRef], &recv[kShim]});
  return Compare(comm, rc[kRef], rc[kShim], views);
}

Result TestAllgather(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const TypeSpec& t = *k.type;
  std::vector<int32_t> mine = Values(rng, k.count * t.ints, 1 << 30);
  Buffer send[2], recv[2];
  int rc[2];
  for (int i : {kRef, kShim}) {
    const bool ip = k.in_place && i == kShim;
    send[i].Allocate(t, ip ? 0 : k.count);
    send[i].Fill(t, ip ? 0 : k.count, mine);
    recv[i].Allocate(t, k.count * size);
    if (ip && k.count > 0) {
      MPI_Aint lb, extent;
      MPI_Type_get_extent(t.type, &lb, &extent);
      int position = 0;
      MPI_Unpack(mine.data(), static_cast<int>(mine.size() * 4), &position,
                 recv[i].base + extent * k.count * rank,
                 static_cast<int>(k.count), t.type, MPI_COMM_SELF);
    }
    rc[i] = (i == kRef ? PMPI_Allgather : MPI_Allgather)(
        ip ? MPI_IN_PLACE : send[i].base, static_cast<int>(k.count), t.type,
        recv[i].base, static_cast<int>(k.count), t.type, comm);
  }
  std::vector<View> views = {{&recv[kRef], &recv[kShim]}};
  if (!k.in_place) views.push_back({&send[kRef], &send[kShim]});
  return Compare(comm, rc[kRef], rc[kShim], views);
}

Result TestAlltoall(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int size;
  MPI_Comm_size(comm, &size);
  const TypeSpec& t = *k.type;
  std::vector<int32_t> input = Values(rng, k.count * t.ints * size, 1 << 30);
  Buffer send[2], recv[2];
  int rc[2];
  for (int i : {kRef, kShim}) {
    const bool ip = k.in_place && i == kShim;
    send[i].Allocate(t, ip ? 0 : k.count * size);
    recv[i].Allocate(t, k.count * size);
    (ip ? recv[i] : send[i]).Fill(t, k.count * size, input);
    rc[i] = (i == kRef ? PMPI_Alltoall : MPI_Alltoall)(
        ip ? MPI_IN_PLACE : send[i].base, static_cast<int>(k.count), t.type,
        recv[i].base, static_cast<int>(k.count), t.type, comm);
  }
  std::vector<View> views = {{&recv[kRef], &recv[kShim]}};
  if (!k.in_place) views.push_back({&send[kRef], &send[kShim]});
  return Compare(comm, rc[kRef], rc[kShim], views);
}

// Irregular: rank i contributes (count + i) % 5 elements, blocks placed in
// reverse rank order with gaps, so displacements are neither contiguous nor
// ordered.
void IrregularLayout(const Case& k, int size, std::vector<int>* counts,
                     std::vector<int>* displs, int* total) {
  counts->assign(size, 0);
  displs->assign(size, 0);
  *total = 0;
  for (int i = size - 1; i >= 0; --i) {
    (*counts)[i] = static_cast<int>((k.count + i) % 5);
    (*displs)[i] = *total + 1;
    *total += (*counts)[i] + 1;
  }
}

Result TestGatherv(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = k.root % size;
  const TypeSpec& t = *k.type;
  std::vector<int> counts, displs;
  int total;
  IrregularLayout(k, size, &counts, &displs, &total);
  std::vector<int32_t> mine = Values(rng, counts[rank] * t.ints, 1 << 30);
  Buffer send[2], recv[2];
  int rc[2];
  for (int i : {kRef, kShim}) {
    send[i].Allocate(t, counts[rank]);
    send[i].Fill(t, counts[rank], mine);
    recv[i].Allocate(t, rank == root ? total : 0);
    rc[i] = (i == kRef ? PMPI_Gatherv : MPI_Gatherv)(
        send[i].base, counts[rank], t.type, recv[i].base, counts.data(),
        displs.data(), t.type, root, comm);
  }
  return Compare(comm, rc[kRef], rc[kShim],
                 {{&send[kRef], &send[kShim]}, {&recv[kRef], &recv[kShim]}});
}

Result TestScatterv(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = k.root % size;
  const TypeSpec& t = *k.type;
  std::vector<int> counts, displs;
  int total;
  IrregularLayout(k, size, &counts, &displs, &total);
  std::vector<int32_t> all = Values(rng, static_cast<int64_t>(total) * t.ints, 1 << 30);
  Buffer send[2], recv[2];
  int rc[2];
  for (int i : {kRef, kShim}) {
    send[i].Allocate(t, rank == root ? total : 0);
    if (rank == root) send[i].Fill(t, total, all);
    recv[i].Allocate(t, counts[rank]);
    rc[i] = (i == kRef ? PMPI_Scatterv : MPI_Scatterv)(
        send[i].base, counts.data(), displs.data(), t.type, recv[i].base,
        counts[rank], t.type, root, comm);
  }
  return Compare(comm, rc[kRef], rc[kShim],
                 {{&send[kRef], &send[kShim]}, {&recv[kRef], &recv[kShim]}});
}

struct Collective {
  const char* name;
  Runner run;
  bool reduction;
};

const std::vector<Collective>& Collectives() {
  static const std::vector<Collective> all = {
      {"allgather", TestAllgather, false},
      {"allreduce", TestAllreduce, true},
      {"alltoall", TestAlltoall, false},
      {"bcast", TestBcast, false},
      {"gather", TestGather, false},
      {"gatherv", TestGatherv, false},
      {"reduce", TestReduce, true},
      {"reduce_scatter_block", TestReduceScatterBlock, true},
      {"scan", TestScan, true},
      {"scatter", TestScatter, false},
      {"scatterv", TestScatterv, false},
  };
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string collective;
  int cases = 100;
  unsigned long long seed = 1;
  int64_t max_count = 65537;
  int only_case = -1;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--verbose") verbose = true;
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--collective") collective = argv[i + 1];
    else if (flag == "--cases") cases = atoi(argv[i + 1]);
    else if (flag == "--seed") seed = strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--max-count") max_count = atoll(argv[i + 1]);
    else if (flag == "--case") only_case = atoi(argv[i + 1]);
  }
  const Collective* target = nullptr;
  for (const Collective& c : Collectives()) {
    if (collective == c.name) target = &c;
  }
  if (target == nullptr) {
    if (rank == 0) {
      fprintf(stderr, "usage: differential --collective NAME [--cases N] "
                      "[--seed S] [--max-count N] [--case I] [--verbose]\n");
    }
    MPI_Finalize();
    return 2;
  }
  MakeTypes();
  MakeOps();
  Comms comms = MakeComms();
  int failures = 0;
  for (int i = 0; i < cases; ++i) {
    if (only_case >= 0 && i != only_case) continue;
    Case k = MakeCase(seed, i, comms, max_count, target->reduction);
    MPI_Comm comm = comms.comms[k.comm];
    int crank;
    MPI_Comm_rank(comm, &crank);
    // Each rank's inputs come from its own stream, reproducible per case.
    if (verbose && crank == 0) {
      printf("case %s\n", k.Describe(comms, target->name, seed).c_str());
      fflush(stdout);
    }
    std::mt19937_64 rng(seed * 7919ULL + i * 104729ULL + crank);
    Result r = target->run(k, comm, rng);
    if (!r.ok) {
      ++failures;
      if (crank == 0) {
        printf("FAIL %s: %s\n", k.Describe(comms, target->name, seed).c_str(),
               r.detail.c_str());
        fflush(stdout);
      }
    }
  }
  // Failures were counted per communicator; every rank saw all of them.
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("%s: %d cases, %d failed (seed %llu)\n", target->name, cases, total,
           seed);
  }
  for (TypeSpec& t : g_types) {
    if (!t.predefined) MPI_Type_free(&t.type);
  }
  for (OpSpec& o : g_ops) {
    if (strncmp(o.name, "user_", 5) == 0) MPI_Op_free(&o.op);
  }
  for (size_t i = 1; i < comms.comms.size(); ++i) MPI_Comm_free(&comms.comms[i]);
  MPI_Finalize();
  return total > 100 ? 100 : total;
}
