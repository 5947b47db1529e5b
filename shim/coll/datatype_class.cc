#include "shim/coll/datatype_class.h"

#include <cstdint>
#include <vector>

#include "shim/coll/datatype.h"
#include "shim/coll/type_contents.h"

namespace colltune::shim {
namespace {

// Displacements this far from 0 are addresses (a type used with MPI_BOTTOM):
// what such a type means depends on memory, not on its shape.
constexpr MPI_Aint kAbsolute = MPI_Aint{1} << 32;
// Deeper constructor trees are not worth reading.
constexpr int kMaxDepth = 16;

// A constructor tree, read bottom up.
struct Shape {
  LayoutClass layout = LayoutClass::kOther;
  int64_t block = 0;                        // bytes of the smallest contiguous block
  MPI_Datatype basic = MPI_DATATYPE_NULL;   // the one basic type, if one
  bool mixed = false;                       // more than one basic type
};

int64_t SizeOf(MPI_Datatype t) {
  int size = 0;
  return PMPI_Type_size(t, &size) == MPI_SUCCESS ? size : 0;
}

// Adds `inner`'s basic types to `s`.
void Merge(const Shape& inner, Shape* s) {
  if (inner.mixed || (s->basic != MPI_DATATYPE_NULL && inner.basic != s->basic)) {
    s->mixed = true;
  }
  if (s->basic == MPI_DATATYPE_NULL) s->basic = inner.basic;
}

// The predefined pairs of two different basic types.
bool IsMixedPair(MPI_Datatype type) {
  return type == MPI_FLOAT_INT || type == MPI_DOUBLE_INT || type == MPI_LONG_INT ||
         type == MPI_SHORT_INT || type == MPI_LONG_DOUBLE_INT;
}

Shape Read(MPI_Datatype type, int depth);

// Blocks of `inner` repeated at displacements: tiled when `strided`, else
// indexed; strided inner blocks make it nested; struct stays struct.
Shape Blocks(const Shape& inner, int64_t min_blocklength, bool strided) {
  Shape s = inner;
  switch (inner.layout) {
    case LayoutClass::kContiguous:
      s.layout = strided ? LayoutClass::kTiled : LayoutClass::kIndexed;
      s.block = min_blocklength * inner.block;
      break;
    case LayoutClass::kTiled:
    case LayoutClass::kIndexed:
    case LayoutClass::kNested:
      s.layout = LayoutClass::kNested;
      break;
    case LayoutClass::kStruct:
    case LayoutClass::kOther:
      break;
  }
  return s;
}

Shape ReadDerived(int combiner, int depth, const std::vector<int>& ints,
                  const std::vector<MPI_Datatype>& types) {
  Shape s;
  if (types.empty()) return s;
  const Shape inner = Read(types[0], depth + 1);
  switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_RESIZED:
      // Gaps a resize or a contiguous of gapped elements makes show in the
      // whole type's extents, checked by ClassOf.
      return inner;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:  // ints: count, blocklength (+ stride)
      return Blocks(inner, ints.size() > 1 ? ints[1] : 1, true);
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:  // ints: count, blocklength, ...
      return Blocks(inner, ints.size() > 1 ? ints[1] : 1, false);
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED: {  // ints: count, blocklengths[count], ...
      int64_t smallest = 0;
      for (int i = 1; i <= ints[0] && i < static_cast<int>(ints.size()); ++i) {
        if (ints[i] > 0 && (smallest == 0 || ints[i] < smallest)) smallest = ints[i];
      }
      return Blocks(inner, smallest > 0 ? smallest : 1, false);
    }
    case MPI_COMBINER_STRUCT: {  // ints: count, blocklengths[count]
      s = Blocks(inner, ints.size() > 1 && ints[1] > 0 ? ints[1] : 1, false);
      for (size_t i = 1; i < types.size(); ++i) {
        const Shape member = Read(types[i], depth + 1);
        Merge(member, &s);
        const int64_t length = i + 1 < ints.size() ? ints[i + 1] : 1;
        if (length > 0 && member.block > 0 && length * member.block < s.block) {
          s.block = length * member.block;
        }
        if (member.layout == LayoutClass::kOther) s.layout = LayoutClass::kOther;
      }
      if (s.mixed && s.layout != LayoutClass::kOther) s.layout = LayoutClass::kStruct;
      return s;
    }
    case MPI_COMBINER_SUBARRAY: {  // ints: ndims, sizes, subsizes, starts, order
      const int ndims = ints.empty() ? 0 : ints[0];
      if (ndims < 1 || static_cast<int>(ints.size()) < 3 * ndims + 2) return s;
      const bool c_order = ints[3 * ndims + 1] == MPI_ORDER_C;
      const int64_t fastest = ints[1 + ndims + (c_order ? ndims - 1 : 0)];
      s = Blocks(inner, fastest, true);
      if (ndims > 1 && s.layout == LayoutClass::kTiled) s.layout = LayoutClass::kNested;
      return s;
    }
    default:  // darray, and what a newer MPI adds
      return s;
  }
}

Shape Read(MPI_Datatype type, int depth) {
  Shape s;
  TypeContents contents;
  if (depth > kMaxDepth || !contents.Read(type)) return s;
  if (contents.combiner == MPI_COMBINER_NAMED) {
    // A pair (MPI_DOUBLE_INT) is two basic types, with the padding between
    // them a gap: a struct unless dense (ClassOf).
    s.mixed = IsMixedPair(type);
    s.layout = s.mixed ? LayoutClass::kStruct : LayoutClass::kContiguous;
    s.block = SizeOf(type);
    s.basic = type;
    return s;
  }
  return ReadDerived(contents.combiner, depth, contents.ints, contents.types);
}

DatatypeClass Classify(MPI_Datatype type) {
  DatatypeClass c;
  Layout l;
  if (GetLayout(type, &l) != MPI_SUCCESS) return c;
  if (l.true_lb >= kAbsolute || l.true_lb <= -kAbsolute) return c;  // MPI_BOTTOM-based
  const Shape s = Read(type, 0);
  c.homogeneous = s.basic != MPI_DATATYPE_NULL && !s.mixed;
  if (s.layout == LayoutClass::kOther) return c;
  if (l.Contiguous() && l.lb == 0 && l.true_lb == 0) {
    c.layout = LayoutClass::kContiguous;
    return c;
  }
  // A contiguous tree with gaps: elements resized apart, a tile each.
  c.layout = s.layout == LayoutClass::kContiguous ? LayoutClass::kTiled : s.layout;
  int64_t block = s.block > 0 ? s.block : l.size;
  while (block > 1 && c.block_log2 < 62) {
    block >>= 1;
    ++c.block_log2;
  }
  return c;
}

// The attribute's value: the class in the bits of a pointer, never null.
uintptr_t Encode(const DatatypeClass& c) {
  return 1u | static_cast<uintptr_t>(c.layout) << 1 |
         static_cast<uintptr_t>(c.homogeneous) << 4 |
         static_cast<uintptr_t>(c.block_log2) << 5;
}

DatatypeClass Decode(uintptr_t v) {
  DatatypeClass c;
  c.layout = static_cast<LayoutClass>((v >> 1) & 7);
  c.homogeneous = (v >> 4) & 1;
  c.block_log2 = static_cast<uint8_t>((v >> 5) & 63);
  return c;
}

// Classify, with data that is dense (count elements are count * size
// bytes, in order) taken as contiguous whatever its tree: it moves as such.
DatatypeClass ClassifyAsUsed(MPI_Datatype type, const Layout& l) {
  DatatypeClass c = Classify(type);
  if (l.dense) {
    c.layout = LayoutClass::kContiguous;
    c.block_log2 = 0;
  }
  return c;
}

}  // namespace

DatatypeClass ClassOf(MPI_Datatype type) {
  Layout l;
  if (type == MPI_DATATYPE_NULL || GetLayout(type, &l) != MPI_SUCCESS) return DatatypeClass{};
  // Contiguous data of a predefined type: no MPI call (every call with
  // contiguous data may ask).
  if (l.dense && IsPredefinedType(type)) {
    return DatatypeClass{LayoutClass::kContiguous, 0, !IsMixedPair(type)};
  }
  if (IsNamed(type)) return ClassifyAsUsed(type, l);  // pair types: no attributes
  // Created on first use, after MPI_Init; not copied by MPI_Type_dup (a
  // duplicate is classified on its own first use).
  static const int keyval = NewTypeKeyval(&NoTypeDelete);
  void* value = nullptr;
  int found = 0;
  if (keyval != MPI_KEYVAL_INVALID &&
      PMPI_Type_get_attr(type, keyval, &value, &found) == MPI_SUCCESS && found) {
    return Decode(reinterpret_cast<uintptr_t>(value));
  }
  const DatatypeClass c = ClassifyAsUsed(type, l);
  if (keyval != MPI_KEYVAL_INVALID) {
    PMPI_Type_set_attr(type, keyval, reinterpret_cast<void*>(Encode(c)));
  }
  return c;
}

bool MixesBasicTypes(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return false;
  // Predefined types answer from the shim's own table, without an MPI call:
  // MPICH's gather and scatter ask on every call (shim/runtime/repairs.h).
  if (IsPredefinedType(type) || IsNamed(type)) return IsMixedPair(type);
  return !ClassOf(type).homogeneous;
}

std::string Describe(const DatatypeClass& c) {
  if (c.layout == LayoutClass::kContiguous || c.layout == LayoutClass::kOther) {
    return std::string(NameOf(c.layout));
  }
  std::string out = FormatLayoutKey(c.Key());
  if (!c.homogeneous) out += ",mixed";
  return out;
}

}  // namespace colltune::shim
