#include "shim/coll/normal_form.h"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "shim/coll/datatype.h"
#include "shim/coll/type_cache.h"
#include "shim/coll/type_contents.h"

namespace colltune::shim {
namespace {

constexpr int kMaxDepth = 16;
// Displacements this far from 0 are addresses (a type used with MPI_BOTTOM).
constexpr MPI_Aint kAbsolute = MPI_Aint{1} << 32;

// A contiguous run of one basic type in the type map, at `offset` from the
// type's origin.
struct Segment {
  MPI_Aint offset;
  int64_t bytes;
  MPI_Datatype basic;
};

// The blocks of one element of a type, in type-map order, adjacent runs of
// the same basic type merged. False once there are too many.
class Blocks {
 public:
  bool Add(const Segment& b) {
    if (b.bytes == 0) return true;
    if (!list_.empty()) {
      Segment& last = list_.back();
      if (last.basic == b.basic && last.offset + last.bytes == b.offset) {
        last.bytes += b.bytes;
        return true;
      }
    }
    if (list_.size() >= kMaxNormalBlocks) return false;
    list_.push_back(b);
    return true;
  }
  // `inner`'s blocks moved by `shift`.
  bool Append(const Blocks& inner, MPI_Aint shift) {
    for (const Segment& b : inner.list_) {
      if (!Add({b.offset + shift, b.bytes, b.basic})) return false;
    }
    return true;
  }
  const std::vector<Segment>& list() const { return list_; }

 private:
  std::vector<Segment> list_;
};

MPI_Aint ExtentOf(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0;
  return PMPI_Type_get_extent(t, &lb, &extent) == MPI_SUCCESS ? extent : 0;
}

bool Flatten(MPI_Datatype type, int depth, Blocks* out);

// `count` repetitions of `inner`'s blocks, repetition i at offset(i).
template <class OffsetOf>
bool Repeat(const Blocks& inner, int64_t count, OffsetOf offset, Blocks* out) {
  for (int64_t i = 0; i < count; ++i) {
    if (!out->Append(inner, offset(i))) return false;
  }
  return true;
}

// A subarray's elements in type-map order (the last dimension fastest in C
// order, the first in Fortran order).
bool FlattenSubarray(const std::vector<int>& ints, const Blocks& inner, MPI_Aint extent,
                     Blocks* out) {
  const int n = ints[0];
  std::vector<int64_t> stride(n);  // in elements, per dimension
  const bool c_order = ints[1 + 3 * n] == MPI_ORDER_C;
  int64_t s = 1;
  for (int k = 0; k < n; ++k) {
    const int d = c_order ? n - 1 - k : k;  // fastest first
    stride[d] = s;
    s *= ints[1 + d];
  }
  std::vector<int> index(n, 0);
  for (;;) {
    int64_t at = 0;
    for (int d = 0; d < n; ++d) at += (ints[1 + 2 * n + d] + index[d]) * stride[d];
    if (!out->Append(inner, static_cast<MPI_Aint>(at) * extent)) return false;
    int k = 0;
    for (; k < n; ++k) {  // next index, fastest dimension first
      const int d = c_order ? n - 1 - k : k;
      if (++index[d] < ints[1 + n + d]) break;
      index[d] = 0;
    }
    if (k == n) return true;
  }
}

bool FlattenDerived(const TypeContents& c, int depth, Blocks* out) {
  const std::vector<int>& ints = c.ints;
  const std::vector<MPI_Aint>& addr = c.addresses;
  if (c.types.empty()) return false;
  if (c.combiner == MPI_COMBINER_STRUCT) {  // ints: count, blocklengths
    const int n = ints.empty() ? 0 : ints[0];
    if (static_cast<int>(ints.size()) < n + 1 || static_cast<int>(addr.size()) < n ||
        static_cast<int>(c.types.size()) < n) {
      return false;
    }
    for (int i = 0; i < n; ++i) {
      Blocks member;
      if (!Flatten(c.types[i], depth + 1, &member)) return false;
      const MPI_Aint extent = ExtentOf(c.types[i]);
      if (!Repeat(member, ints[1 + i], [&](int64_t j) { return addr[i] + j * extent; }, out)) {
        return false;
      }
    }
    return true;
  }
  Blocks inner;
  if (!Flatten(c.types[0], depth + 1, &inner)) return false;
  const MPI_Aint extent = ExtentOf(c.types[0]);
  const auto need = [&](int64_t n) { return static_cast<int64_t>(ints.size()) >= n; };
  switch (c.combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:  // bounds only: the outer type keeps them
      return out->Append(inner, 0);
    case MPI_COMBINER_CONTIGUOUS:
      return need(1) && Repeat(inner, ints[0], [&](int64_t i) { return i * extent; }, out);
    case MPI_COMBINER_VECTOR:  // count, blocklength, stride (elements)
    case MPI_COMBINER_HVECTOR: {  // count, blocklength; stride (bytes)
      if (!need(2)) return false;
      const bool h = c.combiner == MPI_COMBINER_HVECTOR;
      if (h ? addr.empty() : !need(3)) return false;
      const MPI_Aint stride = h ? addr[0] : ints[2] * extent;
      const int64_t length = ints[1];
      return Repeat(inner, static_cast<int64_t>(ints[0]) * length,
                    [&](int64_t k) { return (k / length) * stride + (k % length) * extent; },
                    out);
    }
    case MPI_COMBINER_INDEXED:      // count, blocklengths, displacements (elements)
    case MPI_COMBINER_HINDEXED: {   // count, blocklengths; displacements (bytes)
      const int n = need(1) ? ints[0] : -1;
      const bool h = c.combiner == MPI_COMBINER_HINDEXED;
      if (n < 0 || !need(1 + n + (h ? 0 : n)) || (h && static_cast<int>(addr.size()) < n)) {
        return false;
      }
      for (int i = 0; i < n; ++i) {
        const MPI_Aint at = h ? addr[i] : ints[1 + n + i] * extent;
        if (!Repeat(inner, ints[1 + i], [&](int64_t j) { return at + j * extent; }, out)) {
          return false;
        }
      }
      return true;
    }
    case MPI_COMBINER_INDEXED_BLOCK:   // count, blocklength, displacements
    case MPI_COMBINER_HINDEXED_BLOCK: {
      const int n = need(2) ? ints[0] : -1;
      const bool h = c.combiner == MPI_COMBINER_HINDEXED_BLOCK;
      if (n < 0 || (h ? static_cast<int>(addr.size()) < n : !need(2 + n))) return false;
      for (int i = 0; i < n; ++i) {
        const MPI_Aint at = h ? addr[i] : ints[2 + i] * extent;
        if (!Repeat(inner, ints[1], [&](int64_t j) { return at + j * extent; }, out)) {
          return false;
        }
      }
      return true;
    }
    case MPI_COMBINER_SUBARRAY: {  // ndims, sizes, subsizes, starts, order
      const int n = need(1) ? ints[0] : 0;
      return n >= 1 && need(3 * n + 2) && FlattenSubarray(ints, inner, extent, out);
    }
    default:  // darray, and what a newer MPI adds
      return false;
  }
}

bool Flatten(MPI_Datatype type, int depth, Blocks* out) {
  TypeContents c;
  if (depth > kMaxDepth || !c.Read(type)) return false;
  if (c.combiner == MPI_COMBINER_NAMED) {
    Layout l;
    // Pair types (MPI_DOUBLE_INT ...) have gaps and no contents to read.
    if (GetLayout(type, &l) != MPI_SUCCESS || !l.dense) return false;
    return out->Add({0, l.size, type});
  }
  return FlattenDerived(c, depth, out);
}

// One level over a named type (what the normal form would be itself).
bool AlreadyFlat(MPI_Datatype type) {
  TypeContents c;
  if (!c.Read(type)) return true;
  if (c.combiner == MPI_COMBINER_DUP || c.combiner == MPI_COMBINER_RESIZED) {
    return c.types.empty() || AlreadyFlat(c.types[0]);
  }
  switch (c.combiner) {
    case MPI_COMBINER_NAMED:
      return true;
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
      return !c.types.empty() && IsNamed(c.types[0]);
    default:
      return false;
  }
}

// The blocks as one MPI type (not committed), displacements from the origin.
MPI_Datatype Describe(const std::vector<Segment>& blocks) {
  const int n = static_cast<int>(blocks.size());
  bool homogeneous = true, equal = true, spaced = n > 1;
  for (int i = 1; i < n; ++i) {
    homogeneous = homogeneous && blocks[i].basic == blocks[0].basic;
    equal = equal && blocks[i].bytes == blocks[0].bytes;
    spaced = spaced && blocks[i].offset - blocks[i - 1].offset ==
                           blocks[1].offset - blocks[0].offset;
  }
  MPI_Datatype out = MPI_DATATYPE_NULL;
  if (!homogeneous) {
    std::vector<int> lengths(n);
    std::vector<MPI_Aint> displs(n);
    std::vector<MPI_Datatype> types(n);
    for (int i = 0; i < n; ++i) {
      const Segment& b = blocks[i];
      int size = 1;
      PMPI_Type_size(b.basic, &size);
      lengths[i] = static_cast<int>(b.bytes / size);
      displs[i] = b.offset;
      types[i] = b.basic;
    }
    PMPI_Type_create_struct(n, lengths.data(), displs.data(), types.data(), &out);
    return out;
  }
  const MPI_Datatype basic = blocks[0].basic;
  int size = 1;
  PMPI_Type_size(basic, &size);
  if (equal && spaced) {
    // One vector, moved to the first block's offset by a one-member struct.
    MPI_Datatype vector;
    if (PMPI_Type_create_hvector(n, static_cast<int>(blocks[0].bytes / size),
                                 blocks[1].offset - blocks[0].offset, basic,
                                 &vector) != MPI_SUCCESS) {
      return MPI_DATATYPE_NULL;
    }
    if (blocks[0].offset == 0) return vector;
    const int one = 1;
    const MPI_Aint at = blocks[0].offset;
    PMPI_Type_create_struct(1, &one, &at, &vector, &out);
    PMPI_Type_free(&vector);
    return out;
  }
  std::vector<MPI_Aint> displs(n);
  for (int i = 0; i < n; ++i) displs[i] = blocks[i].offset;
  if (equal) {
    PMPI_Type_create_hindexed_block(n, static_cast<int>(blocks[0].bytes / size),
                                    displs.data(), basic, &out);
    return out;
  }
  std::vector<int> lengths(n);
  for (int i = 0; i < n; ++i) lengths[i] = static_cast<int>(blocks[i].bytes / size);
  PMPI_Type_create_hindexed(n, lengths.data(), displs.data(), basic, &out);
  return out;
}

}  // namespace

MPI_Datatype BuildNormalForm(MPI_Datatype type) {
  Layout l;
  if (IsNamed(type) || GetLayout(type, &l) != MPI_SUCCESS || l.dense ||
      l.true_lb >= kAbsolute || l.true_lb <= -kAbsolute || AlreadyFlat(type)) {
    return MPI_DATATYPE_NULL;
  }
  Blocks blocks;
  if (!Flatten(type, 0, &blocks) || blocks.list().empty()) return MPI_DATATYPE_NULL;
  for (const Segment& b : blocks.list()) {
    if (b.bytes > INT_MAX) return MPI_DATATYPE_NULL;
  }
  MPI_Datatype flat = Describe(blocks.list());
  if (flat == MPI_DATATYPE_NULL) return flat;
  // The user's bounds: the same extent steps count elements alike.
  MPI_Datatype out = MPI_DATATYPE_NULL;
  if (PMPI_Type_create_resized(flat, l.lb, l.extent, &out) != MPI_SUCCESS) {
    out = MPI_DATATYPE_NULL;
  }
  PMPI_Type_free(&flat);
  if (out == MPI_DATATYPE_NULL) return out;
  PMPI_Type_commit(&out);
  // The same size, bounds and true bounds, or the tree was misread.
  Layout n;
  if (GetLayout(out, &n) != MPI_SUCCESS || n.size != l.size || n.lb != l.lb ||
      n.extent != l.extent || n.true_lb != l.true_lb || n.true_extent != l.true_extent) {
    PMPI_Type_free(&out);
  }
  return out;
}

MPI_Datatype NormalFormOf(MPI_Datatype type) {
  if (IsNamed(type)) return type;
  // Created on first use, after MPI_Init.
  static const TypeAttribute<OwnedType> forms(
      [](MPI_Datatype t) { return new OwnedType{BuildNormalForm(t)}; });
  const OwnedType* form = forms.Get(type);
  return form == nullptr || form->type == MPI_DATATYPE_NULL ? type : form->type;
}

}  // namespace colltune::shim
