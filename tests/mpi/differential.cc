// Differential test of the shim: for seeded random cases of one collective,
// runs the MPI library's own implementation (PMPI_*) and the intercepted call
// (MPI_*, which the shim dispatches to whatever COLLTUNE_FORCE or the table
// chose) in the same form (in place or not, the same arguments), from
// identical memory, and requires the two to leave every byte of memory the
// call could reach identical on every rank.
//
// The rule this enforces: a mock-up writes no byte that the library's own
// collective leaves untouched, and leaves no byte the library writes
// different (floating-point sums excepted, within an error bound). All user
// buffers of a call come from one arena per side, filled with a canary that
// depends on each byte's position (arena.h below), so gaps inside derived
// datatypes, bytes past `count`, the rest of an in-place buffer and the
// receive buffers that MPI calls "not significant" at non-roots are all
// checked. Buffers sit either behind guard zones or back to back, and empty
// or insignificant buffers are sometimes NULL: arguments that MPI allows but
// that a mock-up could turn into ones it forbids (aliased buffers, which
// MPICH refuses).
//
//   mpirun -np 4 -x LD_PRELOAD=libcolltune.so
//       -x COLLTUNE_FORCE=allreduce=allreduce_as_reduce_bcast
//       differential --collective allreduce --cases 200 --seed 1
//
// Each case is derived from (seed, case index) only, identically on every
// rank; the first 32 form a grid of small counts in every form. A failure prints one line with everything needed to reproduce it;
// the exit code is the number of failed cases (capped at 100).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
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

// The basic elements a test datatype is made of, so that values can be
// generated, user operations can walk the layout, and floating-point results
// can be compared within an error bound.
enum class Kind { kI8, kI16, kI32, kI64, kU32, kF32, kF64 };

int SizeOf(Kind k) {
  switch (k) {
    case Kind::kI8: return 1;
    case Kind::kI16: return 2;
    case Kind::kI32: case Kind::kU32: case Kind::kF32: return 4;
    case Kind::kI64: case Kind::kF64: return 8;
  }
  return 0;
}

bool IsFloat(Kind k) { return k == Kind::kF32 || k == Kind::kF64; }

struct Field {
  Kind kind;
  int offset;  // bytes from the element's address
};

struct TypeSpec {
  const char* name;
  MPI_Datatype type;
  bool predefined;
  bool pair;                  // a value-index pair (MPI_MINLOC/MPI_MAXLOC)
  std::vector<Field> fields;  // in typemap order
  MPI_Aint extent = 0;
  MPI_Datatype twin = MPI_DATATYPE_NULL;  // same signature, packed layout
  int PackedSize() const {
    int n = 0;
    for (const Field& f : fields) n += SizeOf(f.kind);
    return n;
  }
  bool AllIntegers() const {
    for (const Field& f : fields) {
      if (IsFloat(f.kind)) return false;
    }
    return true;
  }
  bool HasFloat() const { return !AllIntegers(); }
  bool Int32Pairs() const {
    if (fields.size() % 2 != 0) return false;
    for (const Field& f : fields) {
      if (f.kind != Kind::kI32) return false;
    }
    return true;
  }
};

std::vector<TypeSpec> g_types;  // filled once in main, same order everywhere

MPI_Datatype BasicType(Kind k) {
  switch (k) {
    case Kind::kI8: return MPI_SIGNED_CHAR;
    case Kind::kI16: return MPI_SHORT;
    case Kind::kI32: return MPI_INT;
    case Kind::kI64: return MPI_LONG_LONG;
    case Kind::kU32: return MPI_UNSIGNED;
    case Kind::kF32: return MPI_FLOAT;
    case Kind::kF64: return MPI_DOUBLE;
  }
  return MPI_DATATYPE_NULL;
}

void AddType(const char* name, MPI_Datatype type, bool predefined, bool pair,
             std::vector<Field> fields) {
  if (!predefined) MPI_Type_commit(&type);
  TypeSpec t{name, type, predefined, pair, std::move(fields)};
  MPI_Aint lb;
  MPI_Type_get_extent(type, &lb, &t.extent);
  // The twin lists the same basic elements one after the other: ranks that
  // use it for the same data have matching type signatures.
  std::vector<int> lens(t.fields.size(), 1);
  std::vector<MPI_Aint> displs;
  std::vector<MPI_Datatype> types;
  MPI_Aint at = 0;
  for (const Field& f : t.fields) {
    displs.push_back(at);
    types.push_back(BasicType(f.kind));
    at += SizeOf(f.kind);
  }
  MPI_Type_create_struct(static_cast<int>(lens.size()), lens.data(),
                         displs.data(), types.data(), &t.twin);
  MPI_Type_commit(&t.twin);
  g_types.push_back(std::move(t));
}

void MakeTypes() {
  AddType("int", MPI_INT, true, false, {{Kind::kI32, 0}});
  AddType("double", MPI_DOUBLE, true, false, {{Kind::kF64, 0}});
  AddType("float", MPI_FLOAT, true, false, {{Kind::kF32, 0}});
  AddType("short", MPI_SHORT, true, false, {{Kind::kI16, 0}});
  AddType("long_long", MPI_LONG_LONG, true, false, {{Kind::kI64, 0}});
  AddType("unsigned", MPI_UNSIGNED, true, false, {{Kind::kU32, 0}});
  AddType("signed_char", MPI_SIGNED_CHAR, true, false, {{Kind::kI8, 0}});
  AddType("2int", MPI_2INT, true, true, {{Kind::kI32, 0}, {Kind::kI32, 4}});
  AddType("double_int", MPI_DOUBLE_INT, true, true,
          {{Kind::kF64, 0}, {Kind::kI32, 8}});
  AddType("short_int", MPI_SHORT_INT, true, true,
          {{Kind::kI16, 0}, {Kind::kI32, 4}});
  MPI_Datatype t;
  // Two ints with a two-int gap: {int, _, _, int}.
  MPI_Type_vector(2, 1, 3, MPI_INT, &t);
  AddType("vector", t, false, false, {{Kind::kI32, 0}, {Kind::kI32, 12}});
  // Three ints, packed out of memory order: the block at 3 comes first.
  int lens[2] = {1, 2};
  int displs[2] = {3, 0};
  MPI_Type_indexed(2, lens, displs, MPI_INT, &t);
  AddType("indexed", t, false, false,
          {{Kind::kI32, 12}, {Kind::kI32, 0}, {Kind::kI32, 4}});
  // One int at byte 8 of a 16-byte extent whose lower bound is -4.
  MPI_Datatype inner;
  MPI_Aint disp = 8;
  int one = 1;
  MPI_Datatype base = MPI_INT;
  MPI_Type_create_struct(1, &one, &disp, &base, &inner);
  MPI_Type_create_resized(inner, -4, 16, &t);
  MPI_Type_free(&inner);
  AddType("resized", t, false, false, {{Kind::kI32, 8}});
  // {double, gap, int, gap} in a 24-byte extent.
  int lens2[2] = {1, 1};
  MPI_Aint displs2[2] = {0, 12};
  MPI_Datatype types2[2] = {MPI_DOUBLE, MPI_INT};
  MPI_Type_create_struct(2, lens2, displs2, types2, &inner);
  MPI_Type_create_resized(inner, 0, 24, &t);
  MPI_Type_free(&inner);
  AddType("struct", t, false, false, {{Kind::kF64, 0}, {Kind::kI32, 12}});
  // Doubles every other slot: a non-contiguous floating-point type.
  MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &t);
  AddType("vector_double", t, false, false,
          {{Kind::kF64, 0}, {Kind::kF64, 16}, {Kind::kF64, 32}});
  // Seed 003's nested vector: two {int, _, int} blocks 20 bytes apart.
  MPI_Type_vector(2, 1, 2, MPI_INT, &inner);
  MPI_Type_create_hvector(2, 1, 20, inner, &t);
  MPI_Type_free(&inner);
  AddType("nested_vector", t, false, false,
          {{Kind::kI32, 0}, {Kind::kI32, 8}, {Kind::kI32, 20}, {Kind::kI32, 28}});
  // A 2 x 2 block of a 3 x 3 float array, from row 1 (C order).
  int sizes[2] = {3, 3}, subsizes[2] = {2, 2}, starts[2] = {1, 0};
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_FLOAT, &t);
  AddType("subarray", t, false, false,
          {{Kind::kF32, 12}, {Kind::kF32, 16}, {Kind::kF32, 24}, {Kind::kF32, 28}});
}

const TypeSpec* TypeOfHandle(MPI_Datatype t) {
  for (const TypeSpec& s : g_types) {
    if (s.type == t) return &s;
  }
  return nullptr;
}

// ---------------------------------------------------------------- values


// Packed bytes for `count` elements of t: integers in a range small enough
// that sums over 8 ranks neither overflow nor lose exactness; floating-point
// values in [-1000, 1000]; pair types with few distinct values, so that
// MINLOC/MAXLOC meet ties.
std::vector<unsigned char> Values(std::mt19937_64& rng, const TypeSpec& t,
                                  int64_t count) {
  std::vector<unsigned char> out(static_cast<size_t>(count * t.PackedSize()));
  unsigned char* p = out.data();
  for (int64_t i = 0; i < count; ++i) {
    for (size_t f = 0; f < t.fields.size(); ++f) {
      const Kind k = t.fields[f].kind;
      const bool index = t.pair && f == 1;
      const int64_t range = t.pair && !index ? 3 : k == Kind::kI8 ? 15 : 1000;
      const int64_t v = std::uniform_int_distribution<int64_t>(-range, range)(rng);
      switch (k) {
        case Kind::kI8: { int8_t x = static_cast<int8_t>(v); memcpy(p, &x, 1); break; }
        case Kind::kI16: { int16_t x = static_cast<int16_t>(v); memcpy(p, &x, 2); break; }
        case Kind::kI32: { int32_t x = static_cast<int32_t>(index ? (v + 1000) : v); memcpy(p, &x, 4); break; }
        case Kind::kU32: { uint32_t x = static_cast<uint32_t>(v + 1000); memcpy(p, &x, 4); break; }
        case Kind::kI64: { int64_t x = v * 1000003; memcpy(p, &x, 8); break; }
        case Kind::kF32: { float x = static_cast<float>(v) / 7; memcpy(p, &x, 4); break; }
        case Kind::kF64: { double x = static_cast<double>(v) / 7; memcpy(p, &x, 8); break; }
      }
      p += SizeOf(k);
    }
  }
  return out;
}

// ---------------------------------------------------------------- operations

// User operations receive data in the datatype's own layout; they walk it
// with the fields of our TypeSpec. A datatype they do not know means the shim
// handed them something other than the application's datatype: abort.
const TypeSpec& KnownType(MPI_Datatype* type) {
  const TypeSpec* t = TypeOfHandle(*type);
  if (t == nullptr) {
    fprintf(stderr, "user operation called with an unknown datatype\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  return *t;
}

template <class T>
T* FieldAt(void* buf, const TypeSpec& t, int element, size_t f) {
  return reinterpret_cast<T*>(static_cast<char*>(buf) + element * t.extent +
                              t.fields[f].offset);
}

// Commutative: wrapping integer addition, field by field.
void AddInts(void* in, void* inout, int* len, MPI_Datatype* type) {
  const TypeSpec& t = KnownType(type);
  for (int i = 0; i < *len; ++i) {
    for (size_t f = 0; f < t.fields.size(); ++f) {
      switch (t.fields[f].kind) {
        case Kind::kI8: *FieldAt<uint8_t>(inout, t, i, f) += *FieldAt<uint8_t>(in, t, i, f); break;
        case Kind::kI16: *FieldAt<uint16_t>(inout, t, i, f) += *FieldAt<uint16_t>(in, t, i, f); break;
        case Kind::kI32: case Kind::kU32: *FieldAt<uint32_t>(inout, t, i, f) += *FieldAt<uint32_t>(in, t, i, f); break;
        case Kind::kI64: *FieldAt<uint64_t>(inout, t, i, f) += *FieldAt<uint64_t>(in, t, i, f); break;
        default: MPI_Abort(MPI_COMM_WORLD, 4);
      }
    }
  }
}

// Associative but not commutative: composition of affine maps x -> a*x + b
// (wrapping), one map per consecutive pair of int fields. inout = in o inout,
// so a reduction in rank order computes f_0 o f_1 o ... o f_{p-1}; any other
// order gives another result.
void ComposeAffine(void* in, void* inout, int* len, MPI_Datatype* type) {
  const TypeSpec& t = KnownType(type);
  for (int i = 0; i < *len; ++i) {
    for (size_t f = 0; f + 1 < t.fields.size(); f += 2) {
      const uint32_t fa = *FieldAt<uint32_t>(in, t, i, f);
      const uint32_t fb = *FieldAt<uint32_t>(in, t, i, f + 1);
      uint32_t* ga = FieldAt<uint32_t>(inout, t, i, f);
      uint32_t* gb = FieldAt<uint32_t>(inout, t, i, f + 1);
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
  // Which datatypes it applies to: MPI defines the predefined operations on
  // predefined types (and MINLOC/MAXLOC on pair types).
  std::function<bool(const TypeSpec&)> accepts;
  bool user;
};
std::vector<OpSpec> g_ops;

void MakeOps() {
  auto plain = [](const TypeSpec& t) { return t.predefined && !t.pair; };
  auto plain_int = [](const TypeSpec& t) {
    return t.predefined && !t.pair && t.AllIntegers();
  };
  auto pair = [](const TypeSpec& t) { return t.pair; };
  g_ops.push_back({"sum", MPI_SUM, plain, false});
  g_ops.push_back({"max", MPI_MAX, plain, false});
  g_ops.push_back({"min", MPI_MIN, plain, false});
  g_ops.push_back({"bxor", MPI_BXOR, plain_int, false});
  g_ops.push_back({"bor", MPI_BOR, plain_int, false});
  g_ops.push_back({"minloc", MPI_MINLOC, pair, false});
  g_ops.push_back({"maxloc", MPI_MAXLOC, pair, false});
  MPI_Op op;
  MPI_Op_create(&AddInts, 1, &op);
  g_ops.push_back({"user_add", op,
                   [](const TypeSpec& t) { return t.AllIntegers() && !t.pair; },
                   true});
  MPI_Op_create(&ComposeAffine, 0, &op);
  g_ops.push_back({"user_affine_noncommutative", op,
                   [](const TypeSpec& t) { return t.Int32Pairs(); }, true});
}

// ------------------------------------------------------------------- arenas

constexpr int64_t kGuard = 64;

// What a user buffer of one call holds: `count` elements of `type`, or no
// memory at all (a NULL pointer) where MPI allows that.
struct BufferSpec {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int64_t count = 0;
  bool null = false;
};

// The canary byte at arena position `at`: different from its neighbours and
// from the same position in another arena salt, so a misplaced copy of the
// canary is caught as well as a stray write.
unsigned char Canary(int64_t at, uint64_t salt) {
  uint64_t x = static_cast<uint64_t>(at) * 0x9E3779B97F4A7C15ULL + salt;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ULL;
  return static_cast<unsigned char>(x >> 56);
}

// All user buffers of one call on one side. The reference and the shim get
// arenas of the same layout, so byte positions correspond.
class Arena {
 public:
  Arena(const std::vector<BufferSpec>& specs, bool adjacent, uint64_t salt)
      : specs_(specs) {
    int64_t at = kGuard;
    for (const BufferSpec& s : specs) {
      MPI_Aint lb, extent, true_lb, true_extent;
      MPI_Type_get_extent(s.type, &lb, &extent);
      MPI_Type_get_true_extent(s.type, &true_lb, &true_extent);
      const int64_t span = s.count > 0 ? (s.count - 1) * extent + true_extent : 0;
      start_.push_back(at);
      span_.push_back(s.null ? 0 : span);
      true_lb_.push_back(true_lb);
      extent_.push_back(extent);
      if (!s.null) at += span + (adjacent ? 0 : kGuard);
    }
    mem_.resize(static_cast<size_t>(at + kGuard));
    for (size_t j = 0; j < mem_.size(); ++j) mem_[j] = Canary(j, salt);
  }

  // The pointer given to MPI for buffer i.
  char* Base(int i) {
    if (specs_[i].null) return nullptr;
    return reinterpret_cast<char*>(mem_.data()) + start_[i] - true_lb_[i];
  }
  // Arena position of byte `offset` of element `element` of buffer i.
  int64_t Position(int i, int64_t element, int64_t offset) const {
    return start_[i] - true_lb_[i] + element * extent_[i] + offset;
  }
  // The arena's first byte, an origin for byte displacements (Alltoallw).
  char* Origin() { return reinterpret_cast<char*>(mem_.data()); }
  // Arena positions [first, last) of the bytes buffer i spans.
  int64_t First(int i) const { return start_[i]; }
  int64_t Last(int i) const { return start_[i] + span_[i]; }
  // Writes packed values into `count` elements of buffer i from `element` on.
  void Fill(int i, int64_t element, int64_t count,
            const std::vector<unsigned char>& packed) {
    if (count == 0) return;
    int position = 0;
    MPI_Unpack(packed.data(), static_cast<int>(packed.size()), &position,
               Base(i) + element * extent_[i], static_cast<int>(count),
               specs_[i].type, MPI_COMM_SELF);
  }
  // Remembers the memory as it is before the call.
  void Freeze() { before_ = mem_; }
  const std::vector<unsigned char>& bytes() const { return mem_; }
  const std::vector<unsigned char>& before() const { return before_; }

 private:
  std::vector<BufferSpec> specs_;
  std::vector<int64_t> start_, span_;
  std::vector<MPI_Aint> true_lb_, extent_;
  std::vector<unsigned char> mem_, before_;
};

// The two arenas of a call: index kRef for the library's collective, kShim
// for the call through the shim.
constexpr int kRef = 0, kShim = 1;

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
  bool mixed = false;     // odd ranks describe the data with the type's twin
  bool adjacent = false;  // buffers back to back, no guard zones between
  bool recv_first = false;  // the receive buffer lies before the send buffer
  bool null_unused = false;  // empty and insignificant buffers are NULL
  // Alltoallw: every block passed as one element of its own contiguous type
  // (count 1 of contiguous(count, type)), so the types differ between peers.
  bool per_block_types = false;
  const OpSpec* op = nullptr;

  std::string Describe(const Comms& comms, const char* collective,
                       unsigned long long seed) const {
    char buf[512];
    snprintf(buf, sizeof buf,
             "collective=%s seed=%llu case=%d comm=%s type=%s count=%lld "
             "root=%d in_place=%d mixed=%d adjacent=%d recv_first=%d "
             "null_unused=%d per_block_types=%d op=%s",
             collective, seed, index, comms.names[comm].c_str(), type->name,
             static_cast<long long>(count), root, in_place ? 1 : 0,
             mixed ? 1 : 0, adjacent ? 1 : 0, recv_first ? 1 : 0,
             null_unused ? 1 : 0, per_block_types ? 1 : 0, op ? op->name : "-");
    return buf;
  }
  // Floating-point arithmetic makes results depend on the order of
  // operations, which MPI leaves to the implementation.
  bool Inexact() const {
    return op != nullptr && type->HasFloat() &&
           (strcmp(op->name, "sum") == 0);
  }
};

// Defects of MPICH 4.0.2 (Debian 12) the reference cannot avoid, seen
// without any shim: its MPI_Reduce segfaults with MPI_IN_PLACE at a root
// other than 0 (above ~4 KB), and its collectives truncate messages between
// ranks that describe the same data with different derived datatypes, which
// MPI allows; its MPI_Scatter and MPI_Alltoall truncate messages of any
// datatype with gaps (MPI_DOUBLE_INT, a resized struct) beyond some ten
// kilobytes, even at two processes; so do its in-place MPI_Alltoallv and
// MPI_Alltoallw (MPI_DOUBLE_INT, 65537 elements, from two processes); it
// refuses an empty receive buffer at the address of a send buffer as
// aliased; and its MPI_Allgatherv on one process ignores displs[0]. Under
// MPICH, in-place reduce cases use root 0, no case mixes datatypes,
// scatter, alltoall and in-place alltoallv/alltoallw cases use datatypes
// without gaps, an empty Reduce_scatter receive buffer is NULL, and
// allgatherv on one process has displacement 0.
bool g_mpich = false;

// Half the cases have fewer elements than processes (0..8), so that blocks
// are empty: where mock-ups are most likely to pass pointers one past a
// buffer's end, or NULL, to calls that refuse them.
int64_t PickCount(std::mt19937_64& rng, int64_t max_count) {
  static const int64_t kCounts[] = {11, 13, 97, 1009, 65537};
  int64_t c;
  if (rng() % 2 == 0) {
    c = static_cast<int64_t>(rng() % 9);
  } else {
    c = kCounts[rng() % (sizeof kCounts / sizeof kCounts[0])];
  }
  return c > max_count ? max_count : c;
}

// The first cases of every run form a grid of small counts (0..3) in every
// form, buffers back to back; the rest are random.
constexpr int kEdgeCases = 32;

Case MakeCase(unsigned long long seed, int index, const Comms& comms,
              int64_t max_count, bool reduction, const std::string& collective) {
  std::mt19937_64 rng(seed * 1000003ULL + static_cast<unsigned long long>(index));
  Case k;
  k.index = index;
  k.comm = std::uniform_int_distribution<int>(0, comms.comms.size() - 1)(rng);
  k.count = PickCount(rng, max_count);
  k.root = static_cast<int>(rng() % 1024);  // reduced modulo comm size later
  k.in_place = rng() % 2 == 0;
  // MPI wants the same datatype on every rank of a reduction (the shim's
  // quirks rely on it); the others need only the same type signature.
  k.mixed = rng() % 3 == 0 && !g_mpich && !reduction;
  k.adjacent = rng() % 2 == 0;
  k.recv_first = rng() % 2 == 0;
  k.null_unused = rng() % 3 == 0;
  k.per_block_types = collective == "alltoallw" && rng() % 2 == 0;
  if (index < kEdgeCases) {
    // The edge grid: every combination of form and placement with fewer
    // elements than processes, on the whole communicator.
    k.comm = 0;
    k.count = std::min<int64_t>(index % 4, max_count);
    k.in_place = (index / 4) % 2 == 1;
    k.recv_first = (index / 8) % 2 == 1;
    k.null_unused = (index / 16) % 2 == 1;
    k.adjacent = true;
  }
  if (reduction) {
    // An operation, then a datatype it accepts.
    k.op = &g_ops[std::uniform_int_distribution<int>(0, g_ops.size() - 1)(rng)];
    std::vector<const TypeSpec*> fit;
    for (const TypeSpec& t : g_types) {
      if (k.op->accepts(t)) fit.push_back(&t);
    }
    k.type = fit[std::uniform_int_distribution<int>(0, fit.size() - 1)(rng)];
  } else {
    do {
      k.type = &g_types[std::uniform_int_distribution<int>(0, g_types.size() - 1)(rng)];
    } while (g_mpich &&
             (collective == "scatter" || collective == "alltoall" ||
              (k.in_place && (collective == "alltoallv" || collective == "alltoallw"))) &&
             k.type->PackedSize() != k.type->extent);
  }
  return k;
}

// The datatype a rank uses: in mixed cases odd ranks use the twin (same
// signature, packed layout), so ranks' layouts differ as MPI allows.
MPI_Datatype RankType(const Case& k, int rank) {
  return k.mixed && rank % 2 == 1 ? k.type->twin : k.type->type;
}

// A send and a receive buffer in the order the case asks for; returns their
// indexes in the arena through *send and *recv. A buffer without elements
// is NULL when the case says so.
std::vector<BufferSpec> SendRecv(const Case& k, BufferSpec send, BufferSpec recv,
                                 int* send_index, int* recv_index) {
  if (k.null_unused && send.count == 0) send.null = true;
  // Never both: MPI forbids aliased buffers, and two NULLs are.
  if (k.null_unused && recv.count == 0 && !send.null) recv.null = true;
  *send_index = k.recv_first ? 1 : 0;
  *recv_index = k.recv_first ? 0 : 1;
  return k.recv_first ? std::vector<BufferSpec>{recv, send}
                      : std::vector<BufferSpec>{send, recv};
}

// ----------------------------------------------------------- the comparison

// Elements of a reduction result in an arena (buffer `buffer`, elements
// [first, first + count)): where the case is inexact, their floating-point
// fields are compared within an error bound; every other byte of the arenas
// is compared exactly.
struct Elements {
  int buffer;
  const TypeSpec* type;
  int64_t first;
  int64_t count;
};

struct Tolerance {
  bool inexact = false;
  int ranks = 1;
};

bool Close(double a, double b, const Tolerance& tol, Kind k) {
  if (a == b) return true;
  // Each result element combines `ranks` values of magnitude <= 1000/7 in
  // some order; every addition may err by one ulp of the partial sum.
  const double eps = k == Kind::kF32 ? 1.2e-7 : 2.3e-16;
  const double bound = 4.0 * tol.ranks * tol.ranks * (1000.0 / 7) * eps;
  return std::fabs(a - b) <= bound;
}

double FloatAt(const std::vector<unsigned char>& m, int64_t at, Kind k) {
  if (k == Kind::kF32) {
    float f;
    memcpy(&f, &m[at], 4);
    return f;
  }
  double d;
  memcpy(&d, &m[at], 8);
  return d;
}

// Elements whose contents MPI leaves undefined after the call (the rest of
// an in-place Reduce_scatter_block's receive buffer). Libraries may write
// there (MPICH does, for large messages); a mock-up may leave each byte as
// it was or hold the library's value, nothing else: it never writes a byte
// the library leaves untouched.
struct Undefined {
  int buffer;
  int64_t first;
  int64_t count;
};

// --undefined-free: undefined elements may hold anything. For the library's
// own algorithms (native:<name>), which are the library: MPICH's pairwise
// Reduce_scatter_block uses that space as its work area.
bool g_undefined_free = false;

// Returns an empty string if the arenas agree, else the first difference.
std::string Differ(const Arena& ref, const Arena& shim,
                   const std::vector<Elements>& results,
                   const std::vector<Undefined>& undefined, const Tolerance& tol) {
  const std::vector<unsigned char>& a = ref.bytes();
  const std::vector<unsigned char>& b = shim.bytes();
  const std::vector<unsigned char>& before = shim.before();
  if (a.size() != b.size() || before.size() != b.size()) return "arena sizes differ";
  std::vector<char> loose(a.size(), 0);  // compared within the bound
  for (const Undefined& u : undefined) {
    // Element positions, clamped to the buffer's own bytes: a lower bound
    // or an extent past the data must not excuse a neighbour's bytes.
    const int64_t lo = std::max(ref.Position(u.buffer, u.first, 0), ref.First(u.buffer));
    const int64_t hi = std::min(ref.Position(u.buffer, u.first + u.count, 0),
                                ref.Last(u.buffer));
    for (int64_t j = lo; j < hi; ++j) {
      if (g_undefined_free || b[j] == a[j] || b[j] == before[j]) {
        loose[j] = 1;
        continue;
      }
      char buf[200];
      snprintf(buf, sizeof buf,
               "arena byte %lld (undefined by MPI): shim 0x%02x, neither the "
               "library's 0x%02x nor the caller's 0x%02x",
               static_cast<long long>(j), b[j], a[j], before[j]);
      return buf;
    }
  }
  if (tol.inexact) {
    for (const Elements& e : results) {
      for (int64_t i = e.first; i < e.first + e.count; ++i) {
        for (const Field& f : e.type->fields) {
          if (!IsFloat(f.kind)) continue;
          const int64_t at = ref.Position(e.buffer, i, f.offset);
          if (!Close(FloatAt(a, at, f.kind), FloatAt(b, at, f.kind), tol, f.kind)) {
            char buf[160];
            snprintf(buf, sizeof buf,
                     "buffer %d element %lld field at +%d: %.17g, reference %.17g",
                     e.buffer, static_cast<long long>(i), f.offset,
                     FloatAt(b, at, f.kind), FloatAt(a, at, f.kind));
            return buf;
          }
          for (int j = 0; j < SizeOf(f.kind); ++j) loose[at + j] = 1;
        }
      }
    }
  }
  for (size_t j = 0; j < a.size(); ++j) {
    if (loose[j] || a[j] == b[j]) continue;
    // Name the element if the byte belongs to one of a result.
    std::string where;
    for (const Elements& e : results) {
      const int64_t lo = ref.Position(e.buffer, e.first, 0);
      const int64_t hi = ref.Position(e.buffer, e.first + e.count, 0);
      if (static_cast<int64_t>(j) >= lo && static_cast<int64_t>(j) < hi) {
        where = " (in the result elements of buffer " + std::to_string(e.buffer) + ")";
      }
    }
    char buf[200];
    snprintf(buf, sizeof buf, "arena byte %zu of %zu: shim 0x%02x, reference 0x%02x%s",
             j, a.size(), b[j], a[j], where.c_str());
    return buf;
  }
  return "";
}

struct Result {
  bool ok = true;
  std::string detail;
};

// FNV-1a of result elements, to check that every rank holds the same bytes.
uint64_t ElementHash(const Arena& arena, const Elements& e) {
  uint64_t h = 1469598103934665603ULL;
  const std::vector<unsigned char>& m = arena.bytes();
  for (int64_t i = e.first; i < e.first + e.count; ++i) {
    for (const Field& f : e.type->fields) {
      const int64_t at = arena.Position(e.buffer, i, f.offset);
      for (int j = 0; j < SizeOf(f.kind); ++j) {
        h ^= m[at + j];
        h *= 1099511628211ULL;
      }
    }
  }
  return h;
}

// Compares on this rank, then agrees over the communicator. `same_everywhere`
// (elements of the shim's arena) must hold identical bytes on every rank.
Result Compare(MPI_Comm comm, const int rc[2], const Arena arenas[2],
               const std::vector<Elements>& results, const Tolerance& tol,
               const Elements* same_everywhere = nullptr,
               const std::vector<Undefined>& undefined = {}) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  char detail[256] = "";
  int ok = 1;
  if (rc[kRef] != rc[kShim]) {
    ok = 0;
    snprintf(detail, sizeof detail, "rank %d: return code %d, reference %d",
             rank, rc[kShim], rc[kRef]);
  }
  if (ok) {
    std::string d = Differ(arenas[kRef], arenas[kShim], results, undefined, tol);
    if (!d.empty()) {
      ok = 0;
      snprintf(detail, sizeof detail, "rank %d: %s", rank, d.c_str());
    }
  }
  if (same_everywhere != nullptr) {
    const uint64_t h = ElementHash(arenas[kShim], *same_everywhere);
    uint64_t lo = 0, hi = 0;
    PMPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, comm);
    PMPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, comm);
    if (lo != hi && ok) {
      ok = 0;
      snprintf(detail, sizeof detail, "ranks hold different result bytes");
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

Tolerance TolOf(const Case& k, MPI_Comm comm) {
  Tolerance t;
  t.inexact = k.Inexact();
  MPI_Comm_size(comm, &t.ranks);
  return t;
}

// Two arenas of the same layout and canary, one per side.
struct Arenas {
  Arena side[2];
  Arenas(const std::vector<BufferSpec>& specs, const Case& k, int rank)
      : side{Arena(specs, k.adjacent, Salt(k, rank)),
             Arena(specs, k.adjacent, Salt(k, rank))} {}
  static uint64_t Salt(const Case& k, int rank) {
    return static_cast<uint64_t>(k.index) * 131 + static_cast<uint64_t>(rank);
  }
  Arena& operator[](int i) { return side[i]; }
};

// ------------------------------------------------------- collectives tested
//
// kRef runs the library's own collective (PMPI_*), kShim the call through
// the shim, both in the same form: in place when the case says so, with the
// same pointers relative to their arenas. Receive buffers that MPI calls not
// significant (a non-root's in gather, reduce and their v forms; a non-root's
// send buffer in scatter) are NULL or a full-size buffer of canary that must
// come back untouched.

using ReduceFn = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);

// Allreduce and Scan: every rank contributes and receives `count` elements.
Result TestElementwise(const Case& k, MPI_Comm comm, std::mt19937_64& rng,
                       ReduceFn reference, ReduceFn shim, bool same_everywhere) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const TypeSpec& t = *k.type;
  std::vector<unsigned char> input = Values(rng, t, k.count);
  int s, r;
  Arenas a(SendRecv(k, {t.type, k.in_place ? 0 : k.count}, {t.type, k.count}, &s, &r),
           k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    a[i].Fill(k.in_place ? r : s, 0, k.count, input);
    a[i].Freeze();
    rc[i] = (i == kRef ? reference : shim)(k.in_place ? MPI_IN_PLACE : a[i].Base(s),
                                           a[i].Base(r), static_cast<int>(k.count),
                                           t.type, k.op->op, comm);
  }
  const std::vector<Elements> results = {{r, &t, 0, k.count}};
  return Compare(comm, rc, a.side, results, TolOf(k, comm),
                 same_everywhere ? &results[0] : nullptr);
}

Result TestAllreduce(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  return TestElementwise(k, comm, rng, PMPI_Allreduce, MPI_Allreduce, true);
}

Result TestScan(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  return TestElementwise(k, comm, rng, PMPI_Scan, MPI_Scan, false);
}

Result TestReduce(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = g_mpich && k.in_place ? 0 : k.root % size;
  const bool in_place = k.in_place && rank == root;  // the root only
  const TypeSpec& t = *k.type;
  std::vector<unsigned char> input = Values(rng, t, k.count);
  int s, r;
  Arenas a(SendRecv(k, {t.type, in_place ? 0 : k.count},
                    {t.type, k.count, rank != root && k.null_unused}, &s, &r),
           k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    a[i].Fill(in_place ? r : s, 0, k.count, input);
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Reduce : MPI_Reduce)(
        in_place ? MPI_IN_PLACE : a[i].Base(s), a[i].Base(r),
        static_cast<int>(k.count), t.type, k.op->op, root, comm);
  }
  std::vector<Elements> results;
  if (rank == root) results.push_back({r, &t, 0, k.count});
  return Compare(comm, rc, a.side, results, TolOf(k, comm));
}

Result TestReduceScatterBlock(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const TypeSpec& t = *k.type;
  const int64_t all = k.count * size;
  std::vector<unsigned char> input = Values(rng, t, all);
  int s, r;
  // In place the input fills the receive buffer, of which only the first
  // block is the result: the rest must be left as it was.
  Arenas a(SendRecv(k, {t.type, k.in_place ? 0 : all},
                    {t.type, k.in_place ? all : k.count}, &s, &r),
           k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    a[i].Fill(k.in_place ? r : s, 0, all, input);
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Reduce_scatter_block : MPI_Reduce_scatter_block)(
        k.in_place ? MPI_IN_PLACE : a[i].Base(s), a[i].Base(r),
        static_cast<int>(k.count), t.type, k.op->op, comm);
  }
  std::vector<Undefined> undefined;
  if (k.in_place) undefined.push_back({r, k.count, all - k.count});
  return Compare(comm, rc, a.side, {{r, &t, 0, k.count}}, TolOf(k, comm), nullptr,
                 undefined);
}

Result TestBcast(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = k.root % size;
  const MPI_Datatype type = RankType(k, rank);
  std::vector<unsigned char> input = Values(rng, *k.type, k.count);
  Arenas a({{type, k.count, k.null_unused && k.count == 0}}, k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    if (rank == root) a[i].Fill(0, 0, k.count, input);
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Bcast : MPI_Bcast)(
        a[i].Base(0), static_cast<int>(k.count), type, root, comm);
  }
  return Compare(comm, rc, a.side, {}, TolOf(k, comm));
}

// Gather and scatter: one block of `count` elements per rank; in mixed cases
// ranks describe their blocks with different datatypes.
Result TestGather(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = k.root % size;
  const MPI_Datatype st = RankType(k, rank), rt = RankType(k, root);
  const bool in_place = k.in_place && rank == root;
  std::vector<unsigned char> mine = Values(rng, *k.type, k.count);
  int s, r;
  Arenas a(SendRecv(k, {st, in_place ? 0 : k.count},
                    {rt, k.count * size, rank != root && k.null_unused}, &s, &r),
           k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    if (in_place) {
      a[i].Fill(r, k.count * rank, k.count, mine);
    } else {
      a[i].Fill(s, 0, k.count, mine);
    }
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Gather : MPI_Gather)(
        in_place ? MPI_IN_PLACE : a[i].Base(s), static_cast<int>(k.count), st,
        a[i].Base(r), static_cast<int>(k.count), rt, root, comm);
  }
  return Compare(comm, rc, a.side, {}, TolOf(k, comm));
}

Result TestScatter(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = k.root % size;
  const MPI_Datatype rt = RankType(k, rank), st = RankType(k, root);
  const bool in_place = k.in_place && rank == root;
  std::vector<unsigned char> all = Values(rng, *k.type, k.count * size);
  int s, r;
  Arenas a(SendRecv(k, {st, k.count * size, rank != root && k.null_unused},
                    {rt, in_place ? 0 : k.count}, &s, &r),
           k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    if (rank == root) a[i].Fill(s, 0, k.count * size, all);
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Scatter : MPI_Scatter)(
        a[i].Base(s), static_cast<int>(k.count), st,
        in_place ? MPI_IN_PLACE : a[i].Base(r), static_cast<int>(k.count), rt,
        root, comm);
  }
  return Compare(comm, rc, a.side, {}, TolOf(k, comm));
}

Result TestAllgather(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // In place, MPI has every rank use its receive type for its own block.
  const MPI_Datatype st = RankType(k, rank), rt = RankType(k, rank);
  std::vector<unsigned char> mine = Values(rng, *k.type, k.count);
  int s, r;
  Arenas a(SendRecv(k, {st, k.in_place ? 0 : k.count}, {rt, k.count * size}, &s, &r),
           k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    if (k.in_place) {
      a[i].Fill(r, k.count * rank, k.count, mine);
    } else {
      a[i].Fill(s, 0, k.count, mine);
    }
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Allgather : MPI_Allgather)(
        k.in_place ? MPI_IN_PLACE : a[i].Base(s), static_cast<int>(k.count), st,
        a[i].Base(r), static_cast<int>(k.count), rt, comm);
  }
  return Compare(comm, rc, a.side, {}, TolOf(k, comm));
}

Result TestAlltoall(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const MPI_Datatype t = RankType(k, rank);
  const int64_t all = k.count * size;
  std::vector<unsigned char> input = Values(rng, *k.type, all);
  int s, r;
  Arenas a(SendRecv(k, {t, k.in_place ? 0 : all}, {t, all}, &s, &r), k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    a[i].Fill(k.in_place ? r : s, 0, all, input);
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Alltoall : MPI_Alltoall)(
        k.in_place ? MPI_IN_PLACE : a[i].Base(s), static_cast<int>(k.count), t,
        a[i].Base(r), static_cast<int>(k.count), t, comm);
  }
  return Compare(comm, rc, a.side, {}, TolOf(k, comm));
}

// Irregular block sizes: seed 000 §5's six problem types with average block
// b (same, random in [1, 2b], spikes of 5b with probability 1/5 else 1,
// decreasing, alternating, two blocks), plus zero-size blocks anywhere, and
// the earlier small layout. Large b and spikes exceed the tree's degradation
// threshold, so subtrees that go straight to the root are exercised too.
// Displacements: contiguous in rank order (the root's fast path), reversed
// with gaps, or a random order with gaps. Every rank computes the same
// layout from the case.
const char* const kDistributions[] = {"same",        "random",    "spikes",
                                      "decreasing",  "alternating", "two_blocks",
                                      "zeros",       "small"};

void IrregularLayout(const Case& k, int size, std::vector<int>* counts,
                     std::vector<int>* displs, int* total, std::string* what) {
  std::mt19937_64 g(static_cast<unsigned long long>(k.index) * 7919ULL +
                    static_cast<unsigned long long>(k.count) + size);
  const int dist = k.index % 8;
  const int64_t b = k.count / 8 + 1;
  counts->assign(size, 0);
  displs->assign(size, 0);
  for (int i = 0; i < size; ++i) {
    int64_t m = 0;
    switch (dist) {
      case 0: m = b; break;
      case 1: m = 1 + static_cast<int64_t>(g() % (2 * b)); break;
      case 2: m = g() % 5 == 0 ? 5 * b : 1; break;
      case 3: m = 2 * b * (size - i) / size + 1; break;
      case 4: m = i % 2 == 0 ? b + b / 2 : b - b / 2; break;
      case 5: m = (i == 0 || i == size - 1) ? b : 0; break;
      case 6: m = g() % 2 == 0 ? 0 : static_cast<int64_t>(g() % (2 * b + 1)); break;
      default: m = (k.count + i) % 5; break;
    }
    (*counts)[i] = static_cast<int>(m);
  }
  const int order = (k.index / 8) % 3;
  std::vector<int> ranks(size);
  for (int i = 0; i < size; ++i) ranks[i] = order == 1 ? size - 1 - i : i;
  if (order == 2) std::shuffle(ranks.begin(), ranks.end(), g);
  *total = 0;
  for (int i : ranks) {
    if (order != 0) *total += static_cast<int>(g() % 3);  // a gap
    (*displs)[i] = *total;
    *total += (*counts)[i];
  }
  *what = std::string(kDistributions[dist]) +
          (order == 0 ? " contiguous" : order == 1 ? " reversed+gaps" : " shuffled+gaps");
}

Result Annotated(Result r, const std::string& what) {
  if (!r.ok) r.detail = "layout " + what + ": " + r.detail;
  return r;
}

// Gatherv and scatterv: irregular blocks; in mixed cases ranks describe
// their blocks with different datatypes (same signature); in place at the
// root when the case says so.
Result TestGatherv(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = k.root % size;
  const MPI_Datatype st = RankType(k, rank), rt = RankType(k, root);
  const bool in_place = k.in_place && rank == root;
  std::vector<int> counts, displs;
  int total;
  std::string what;
  IrregularLayout(k, size, &counts, &displs, &total, &what);
  std::vector<unsigned char> mine = Values(rng, *k.type, counts[rank]);
  int s, r;
  Arenas a(SendRecv(k, {st, in_place ? 0 : counts[rank]},
                    {rt, total, rank != root && k.null_unused}, &s, &r),
           k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    if (in_place) {
      a[i].Fill(r, displs[rank], counts[rank], mine);
    } else {
      a[i].Fill(s, 0, counts[rank], mine);
    }
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Gatherv : MPI_Gatherv)(
        in_place ? MPI_IN_PLACE : a[i].Base(s), counts[rank], st, a[i].Base(r),
        counts.data(), displs.data(), rt, root, comm);
  }
  return Annotated(Compare(comm, rc, a.side, {}, TolOf(k, comm)), what);
}

Result TestScatterv(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = k.root % size;
  const MPI_Datatype rt = RankType(k, rank), st = RankType(k, root);
  const bool in_place = k.in_place && rank == root;
  std::vector<int> counts, displs;
  int total;
  std::string what;
  IrregularLayout(k, size, &counts, &displs, &total, &what);
  std::vector<unsigned char> all = Values(rng, *k.type, total);
  int s, r;
  Arenas a(SendRecv(k, {st, total, rank != root && k.null_unused},
                    {rt, in_place ? 0 : counts[rank]}, &s, &r),
           k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    if (rank == root) a[i].Fill(s, 0, total, all);
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Scatterv : MPI_Scatterv)(
        a[i].Base(s), counts.data(), displs.data(), st,
        in_place ? MPI_IN_PLACE : a[i].Base(r), counts[rank], rt, root, comm);
  }
  return Annotated(Compare(comm, rc, a.side, {}, TolOf(k, comm)), what);
}

// -------- allgatherv, alltoallv, alltoallw, barrier, exscan, reduce_scatter
//
// Allgatherv and Reduce_scatter take the irregular layouts above. Their
// count arrays are known to every rank, so the mock-ups decide on them: the
// layouts add one where every block is empty (a call that moves nothing,
// which the shim leaves to the library).
void IrregularLayoutOrEmpty(const Case& k, int size, std::vector<int>* counts,
                            std::vector<int>* displs, int* total, std::string* what) {
  IrregularLayout(k, size, counts, displs, total, what);
  // Count 0 makes b = 1, where "alternating" is "same": empty instead.
  if (k.count == 0 && k.index % 8 == 4) {
    counts->assign(size, 0);
    *total = 0;
    for (int i = 0; i < size; ++i) (*displs)[i] = i % 3;  // ignored, but valid
    *what = "all empty";
  }
}

// Allgatherv: irregular blocks, every rank receives all of them; in mixed
// cases ranks describe the blocks with different datatypes (same
// signature); in place, each rank's block already sits at its displacement.
Result TestAllgatherv(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const MPI_Datatype t = RankType(k, rank);
  std::vector<int> counts, displs;
  int total;
  std::string what;
  IrregularLayoutOrEmpty(k, size, &counts, &displs, &total, &what);
  if (g_mpich && size == 1) {
    // MPICH 4.0.2's MPI_Allgatherv on one process copies the block to the
    // start of recvbuf, ignoring displs[0].
    displs[0] = 0;
    total = counts[0];
  }
  std::vector<unsigned char> mine = Values(rng, *k.type, counts[rank]);
  int s, r;
  Arenas a(SendRecv(k, {t, k.in_place ? 0 : counts[rank]}, {t, total}, &s, &r), k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    if (k.in_place) {
      a[i].Fill(r, displs[rank], counts[rank], mine);
    } else {
      a[i].Fill(s, 0, counts[rank], mine);
    }
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Allgatherv : MPI_Allgatherv)(
        k.in_place ? MPI_IN_PLACE : a[i].Base(s), counts[rank], t, a[i].Base(r),
        counts.data(), displs.data(), t, comm);
  }
  return Annotated(Compare(comm, rc, a.side, {}, TolOf(k, comm)), what);
}

// Reduce_scatter: the vector of all blocks is reduced, rank i keeps block i.
// In place the input fills the receive buffer, of which only the first
// block is the result: the rest is undefined by MPI (Open MPI writes there),
// so the shim must leave each of its bytes as the caller wrote it or as the
// library did.
Result TestReduceScatter(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const TypeSpec& t = *k.type;
  std::vector<int> counts, displs;
  int total;
  std::string what;
  IrregularLayoutOrEmpty(k, size, &counts, &displs, &total, &what);
  const int mine = counts[rank];
  std::vector<unsigned char> input = Values(rng, t, total);
  int s, r;
  // MPICH refuses (as aliased) an empty receive buffer at the send buffer's
  // address, which back-to-back buffers give: there it is NULL instead.
  const bool null_recv = g_mpich && !k.in_place && mine == 0 && total > 0;
  Arenas a(SendRecv(k, {t.type, k.in_place ? 0 : total},
                    {t.type, k.in_place ? total : mine, null_recv}, &s, &r),
           k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    a[i].Fill(k.in_place ? r : s, 0, total, input);
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Reduce_scatter : MPI_Reduce_scatter)(
        k.in_place ? MPI_IN_PLACE : a[i].Base(s), a[i].Base(r), counts.data(), t.type,
        k.op->op, comm);
  }
  std::vector<Undefined> undefined;
  if (k.in_place) undefined.push_back({r, mine, total - mine});
  return Annotated(Compare(comm, rc, a.side, {{r, &t, 0, mine}}, TolOf(k, comm), nullptr,
                           undefined),
                   what);
}

// Exscan: rank r receives x_0 o ... o x_{r-1}. Rank 0's receive buffer is
// undefined by MPI: the shim must leave each of its bytes as the caller
// wrote it or as the library did, so where the library leaves it untouched
// (Open MPI and MPICH do) the shim must too. In place, rank 0's input stays.
Result TestExscan(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const TypeSpec& t = *k.type;
  std::vector<unsigned char> input = Values(rng, t, k.count);
  int s, r;
  Arenas a(SendRecv(k, {t.type, k.in_place ? 0 : k.count}, {t.type, k.count}, &s, &r),
           k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    a[i].Fill(k.in_place ? r : s, 0, k.count, input);
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Exscan : MPI_Exscan)(
        k.in_place ? MPI_IN_PLACE : a[i].Base(s), a[i].Base(r), static_cast<int>(k.count),
        t.type, k.op->op, comm);
  }
  std::vector<Elements> results;
  std::vector<Undefined> undefined;
  if (rank == 0) {
    undefined.push_back({r, 0, k.count});
  } else {
    results.push_back({r, &t, 0, k.count});
  }
  return Compare(comm, rc, a.side, results, TolOf(k, comm), nullptr, undefined);
}

// Alltoallv and Alltoallw: block (i, j), from rank i to rank j, has
// m[i][j] elements, every rank computing the same matrix from the case
// (seed 000's block sizes: same, random, spikes, many empty blocks; all
// empty where count 0 meets index 4 mod 8). In place, MPI has each rank
// send the blocks it then receives, so the matrix is symmetric.
std::vector<std::vector<int>> PairMatrix(const Case& k, int size, std::string* what) {
  std::mt19937_64 g(static_cast<unsigned long long>(k.index) * 7919ULL +
                    static_cast<unsigned long long>(k.count) + size);
  const int dist = k.index % 4;
  const int64_t b = k.count / 8 + 1;
  const bool empty = k.count == 0 && k.index % 8 == 4;
  std::vector<std::vector<int>> m(size, std::vector<int>(size, 0));
  for (int i = 0; i < size; ++i) {
    for (int j = 0; j < size; ++j) {
      if (k.in_place && j < i) {
        m[i][j] = m[j][i];
        continue;
      }
      int64_t n = 0;
      switch (dist) {
        case 0: n = b; break;
        case 1: n = static_cast<int64_t>(g() % (2 * b + 1)); break;
        case 2: n = g() % 5 == 0 ? 5 * b : 1; break;
        default: n = g() % 2 == 0 ? 0 : static_cast<int64_t>(g() % (2 * b + 1)); break;
      }
      m[i][j] = empty ? 0 : static_cast<int>(n);
    }
  }
  static const char* const kNames[] = {"same", "random", "spikes", "zeros"};
  *what = empty ? "all empty" : kNames[dist];
  return m;
}

// Displacements (in elements) for blocks of `counts` in one buffer: in rank
// order, reversed with gaps, or shuffled with gaps (each rank its own, as
// MPI allows). Returns the buffer's length in elements.
int BlockDispls(const Case& k, int rank, int salt, const std::vector<int>& counts,
                std::vector<int>* displs) {
  const int size = static_cast<int>(counts.size());
  std::mt19937_64 g(static_cast<unsigned long long>(k.index) * 104723ULL +
                    static_cast<unsigned long long>(rank) * 31 + salt);
  const int order = (k.index / 4 + salt) % 3;
  std::vector<int> ranks(size);
  for (int i = 0; i < size; ++i) ranks[i] = order == 1 ? size - 1 - i : i;
  if (order == 2) std::shuffle(ranks.begin(), ranks.end(), g);
  displs->assign(size, 0);
  int at = 0;
  for (int i : ranks) {
    if (order != 0) at += static_cast<int>(g() % 3);
    (*displs)[i] = at;
    at += counts[i];
  }
  return at;
}

Result TestAlltoallv(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const MPI_Datatype t = RankType(k, rank);
  std::string what;
  const std::vector<std::vector<int>> m = PairMatrix(k, size, &what);
  std::vector<int> scounts(size), rcounts(size), sdispls, rdispls;
  for (int j = 0; j < size; ++j) {
    scounts[j] = m[rank][j];
    rcounts[j] = m[j][rank];
  }
  const int stotal = BlockDispls(k, rank, 0, scounts, &sdispls);
  const int rtotal = BlockDispls(k, rank, 1, rcounts, &rdispls);
  // Every element of the buffer that is sent, gaps included (never sent).
  std::vector<unsigned char> input = Values(rng, *k.type, k.in_place ? rtotal : stotal);
  int s, r;
  Arenas a(SendRecv(k, {t, k.in_place ? 0 : stotal}, {t, rtotal}, &s, &r), k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    a[i].Fill(k.in_place ? r : s, 0, k.in_place ? rtotal : stotal, input);
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Alltoallv : MPI_Alltoallv)(
        k.in_place ? MPI_IN_PLACE : a[i].Base(s), scounts.data(), sdispls.data(), t,
        a[i].Base(r), rcounts.data(), rdispls.data(), t, comm);
  }
  return Annotated(Compare(comm, rc, a.side, {}, TolOf(k, comm)), what);
}

// Alltoallw: every block has its own datatype (in mixed cases the type or
// its twin, per block) and byte displacement. Each block is a buffer of the
// arena, placed in a per-rank shuffled order; displacements count from the
// arena's first byte.
Result TestAlltoallw(const Case& k, MPI_Comm comm, std::mt19937_64& rng) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::string what;
  const std::vector<std::vector<int>> m = PairMatrix(k, size, &what);
  std::vector<int> scounts(size), rcounts(size), sdispls(size), rdispls(size);
  std::vector<MPI_Datatype> stypes(size), rtypes(size);
  std::mt19937_64 g(static_cast<unsigned long long>(k.index) * 65537ULL + rank);
  auto block_type = [&](int j, int side) {
    return k.mixed && (rank + j + side) % 2 == 1 ? k.type->twin : k.type->type;
  };
  // Buffers 0..p-1: send blocks (none in place), p..2p-1: receive blocks.
  std::vector<BufferSpec> specs;
  std::vector<int> order;
  for (int j = 0; j < size; ++j) {
    scounts[j] = m[rank][j];
    rcounts[j] = m[j][rank];
    stypes[j] = block_type(j, 0);
    rtypes[j] = block_type(j, 1);
  }
  const int nbuf = k.in_place ? size : 2 * size;
  for (int b = 0; b < nbuf; ++b) order.push_back(b);
  if (!k.recv_first) std::shuffle(order.begin(), order.end(), g);
  // Arena buffer index of block b (send j = b, receive j = b - p, or b in
  // place where only receive blocks exist).
  std::vector<int> where(nbuf);
  for (int at = 0; at < nbuf; ++at) {
    const int b = order[at];
    where[b] = at;
    const bool recv = k.in_place || b >= size;
    const int j = k.in_place ? b : b % size;
    specs.push_back({recv ? rtypes[j] : stypes[j], recv ? rcounts[j] : scounts[j], false});
  }
  Arenas a(specs, k, rank);
  // Inputs: the blocks sent (the receive blocks in place).
  std::vector<std::vector<unsigned char>> input(size);
  for (int j = 0; j < size; ++j) {
    input[j] = Values(rng, *k.type, k.in_place ? rcounts[j] : scounts[j]);
  }
  // What the call is given: the counts and types, or per block one element
  // of a contiguous type of the block (the same memory, the same signature).
  std::vector<int> pass_scounts = scounts, pass_rcounts = rcounts;
  std::vector<MPI_Datatype> pass_stypes = stypes, pass_rtypes = rtypes, owned;
  if (k.per_block_types) {
    auto wrap = [&owned](int* count, MPI_Datatype* type) {
      MPI_Datatype t;
      MPI_Type_contiguous(*count, *type, &t);
      MPI_Type_commit(&t);
      owned.push_back(t);
      *count = 1;
      *type = t;
    };
    for (int j = 0; j < size; ++j) {
      wrap(&pass_scounts[j], &pass_stypes[j]);
      wrap(&pass_rcounts[j], &pass_rtypes[j]);
    }
  }
  // Open MPI 4.1.4's MPI_Alltoallw on one process scales byte
  // displacements by the extent: there each side's buffer is its one block,
  // at displacement 0.
  const bool one = size == 1 && !g_mpich;
  int rc[2];
  for (int i : {kRef, kShim}) {
    char* origin = a[i].Origin();
    for (int j = 0; j < size; ++j) {
      const int sb = where[j];
      const int rb = where[k.in_place ? j : size + j];
      a[i].Fill(sb, 0, k.in_place ? rcounts[j] : scounts[j], input[j]);
      sdispls[j] = one ? 0 : static_cast<int>(a[i].Base(sb) - origin);
      rdispls[j] = one ? 0 : static_cast<int>(a[i].Base(rb) - origin);
    }
    a[i].Freeze();
    char* sendbuf = one ? a[i].Base(where[0]) : origin;
    char* recvbuf = one ? a[i].Base(where[k.in_place ? 0 : size]) : origin;
    rc[i] = (i == kRef ? PMPI_Alltoallw : MPI_Alltoallw)(
        k.in_place ? MPI_IN_PLACE : sendbuf, pass_scounts.data(), sdispls.data(),
        pass_stypes.data(), recvbuf, pass_rcounts.data(), rdispls.data(),
        pass_rtypes.data(), comm);
  }
  for (MPI_Datatype& t : owned) MPI_Type_free(&t);
  return Annotated(Compare(comm, rc, a.side, {}, TolOf(k, comm)), what);
}

// Barrier: nothing moves; both return the same code and leave memory alone.
// (Whether it synchronises is tests/mpi/barrier_sync's business.)
Result TestBarrier(const Case& k, MPI_Comm comm, std::mt19937_64& /*rng*/) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  Arenas a({}, k, rank);
  int rc[2];
  for (int i : {kRef, kShim}) {
    a[i].Freeze();
    rc[i] = (i == kRef ? PMPI_Barrier : MPI_Barrier)(comm);
  }
  return Compare(comm, rc, a.side, {}, TolOf(k, comm));
}

struct Collective {
  const char* name;
  Runner run;
  bool reduction;
};

const std::vector<Collective>& Collectives() {
  static const std::vector<Collective> all = {
      {"allgather", TestAllgather, false},
      {"allgatherv", TestAllgatherv, false},
      {"allreduce", TestAllreduce, true},
      {"alltoall", TestAlltoall, false},
      {"alltoallv", TestAlltoallv, false},
      {"alltoallw", TestAlltoallw, false},
      {"barrier", TestBarrier, false},
      {"bcast", TestBcast, false},
      {"exscan", TestExscan, true},
      {"gather", TestGather, false},
      {"gatherv", TestGatherv, false},
      {"reduce", TestReduce, true},
      {"reduce_scatter", TestReduceScatter, true},
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
    if (std::string(argv[i]) == "--undefined-free") g_undefined_free = true;
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
                      "[--seed S] [--max-count N] [--case I] [--verbose]\n"
                      "  runs %d edge cases, then N random ones\n", kEdgeCases);
    }
    MPI_Finalize();
    return 2;
  }
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  g_mpich = strstr(version, "MPICH") != nullptr;
  MakeTypes();
  MakeOps();
  Comms comms = MakeComms();
  // Errors stay fatal: a mock-up that passes arguments the library refuses
  // aborts the job with the library's message (with MPI_ERRORS_RETURN the
  // other ranks would wait forever in the mock-up's next call).
  int failures = 0;
  const int all_cases = kEdgeCases + cases;
  for (int i = 0; i < all_cases; ++i) {
    if (only_case >= 0 && i != only_case) continue;
    Case k = MakeCase(seed, i, comms, max_count, target->reduction, target->name);
    MPI_Comm comm = comms.comms[k.comm];
    int crank;
    MPI_Comm_rank(comm, &crank);
    if (verbose && crank == 0) {
      printf("case %s\n", k.Describe(comms, target->name, seed).c_str());
      fflush(stdout);
    }
    // Each rank's inputs come from its own stream, reproducible per case.
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
    printf("%s: %d cases, %d failed (seed %llu)\n", target->name, all_cases,
           total, seed);
  }
  for (TypeSpec& t : g_types) {
    if (!t.predefined) MPI_Type_free(&t.type);
    MPI_Type_free(&t.twin);
  }
  for (OpSpec& o : g_ops) {
    if (o.user) MPI_Op_free(&o.op);
  }
  for (size_t i = 1; i < comms.comms.size(); ++i) MPI_Comm_free(&comms.comms[i]);
  MPI_Finalize();
  return total > 100 ? 100 : total;
}
