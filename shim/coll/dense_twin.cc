#include "shim/coll/dense_twin.h"

#include <climits>
#include <vector>

#include "shim/coll/type_cache.h"
#include "shim/coll/type_contents.h"

namespace colltune::shim {
namespace {

constexpr int kMaxDepth = 16;

// A type built here on the way (freed once the outer type holds it), or a
// named type (never freed).
struct Piece {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool owned = false;
};

void Drop(Piece* p) {
  if (p->owned && p->type != MPI_DATATYPE_NULL) PMPI_Type_free(&p->type);
  p->type = MPI_DATATYPE_NULL;
}

int64_t SizeOf(MPI_Datatype t) {
  int size = 0;
  return PMPI_Type_size(t, &size) == MPI_SUCCESS ? size : -1;
}

// `n` of `inner` back to back.
Piece Repeat(int64_t n, Piece inner) {
  Piece out;
  if (inner.type != MPI_DATATYPE_NULL && n >= 0 && n <= INT_MAX &&
      PMPI_Type_contiguous(static_cast<int>(n), inner.type, &out.type) == MPI_SUCCESS) {
    out.owned = true;
  } else {
    out.type = MPI_DATATYPE_NULL;
  }
  Drop(&inner);
  return out;
}

Piece Twin(MPI_Datatype type, int depth);

// A struct's members side by side at packed offsets, its extent their sizes'
// sum (MPI would round it up to the members' alignment).
Piece PackedStruct(const std::vector<int>& ints, const std::vector<MPI_Datatype>& types,
                   int depth) {
  const int n = static_cast<int>(types.size());
  std::vector<Piece> members(n);
  std::vector<int> lengths(n);
  std::vector<MPI_Aint> displs(n);
  std::vector<MPI_Datatype> handles(n);
  int64_t offset = 0;
  bool ok = static_cast<int>(ints.size()) > n;
  for (int i = 0; ok && i < n; ++i) {
    members[i] = Twin(types[i], depth + 1);
    const int64_t size = SizeOf(members[i].type);
    ok = members[i].type != MPI_DATATYPE_NULL && size >= 0 && ints[i + 1] >= 0;
    lengths[i] = ok ? ints[i + 1] : 0;
    displs[i] = offset;
    handles[i] = members[i].type;
    offset += static_cast<int64_t>(lengths[i]) * (size < 0 ? 0 : size);
  }
  Piece out;
  MPI_Datatype raw = MPI_DATATYPE_NULL;
  if (ok && offset <= INT_MAX &&
      PMPI_Type_create_struct(n, lengths.data(), displs.data(), handles.data(), &raw) ==
          MPI_SUCCESS) {
    if (PMPI_Type_create_resized(raw, 0, offset, &out.type) == MPI_SUCCESS) {
      out.owned = true;
    } else {
      out.type = MPI_DATATYPE_NULL;
    }
    PMPI_Type_free(&raw);
  }
  for (Piece& m : members) Drop(&m);
  return out;
}

Piece TwinOfDerived(int combiner, const std::vector<int>& ints,
                    const std::vector<MPI_Datatype>& types, int depth) {
  if (types.empty() || ints.size() < (combiner == MPI_COMBINER_DUP ||
                                              combiner == MPI_COMBINER_RESIZED
                                          ? 0u
                                          : 1u)) {
    return Piece{};
  }
  switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
      return Twin(types[0], depth + 1);
    case MPI_COMBINER_CONTIGUOUS:
      return Repeat(ints[0], Twin(types[0], depth + 1));
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:  // ints: count, blocklength, ...
      if (ints.size() < 2) return Piece{};
      return Repeat(static_cast<int64_t>(ints[0]) * ints[1], Twin(types[0], depth + 1));
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED: {  // ints: count, blocklengths[count], ...
      int64_t total = 0;
      for (int i = 1; i <= ints[0] && i < static_cast<int>(ints.size()); ++i) total += ints[i];
      return Repeat(total, Twin(types[0], depth + 1));
    }
    case MPI_COMBINER_STRUCT:
      return PackedStruct(ints, types, depth);
    case MPI_COMBINER_SUBARRAY: {  // ints: ndims, sizes, subsizes, starts, order
      const int ndims = ints[0];
      if (ndims < 1 || static_cast<int>(ints.size()) < 3 * ndims + 2) return Piece{};
      int64_t total = 1;
      for (int i = 0; i < ndims && total <= INT_MAX; ++i) total *= ints[1 + ndims + i];
      return Repeat(total, Twin(types[0], depth + 1));
    }
    default:
      return Piece{};
  }
}

Piece Twin(MPI_Datatype type, int depth) {
  TypeContents contents;
  if (depth > kMaxDepth || !contents.Read(type)) return Piece{};
  if (contents.combiner == MPI_COMBINER_NAMED) {
    Layout l;
    // Pair types (MPI_DOUBLE_INT ...) have gaps and no contents to rebuild.
    if (GetLayout(type, &l) != MPI_SUCCESS || !l.dense) return Piece{};
    return Piece{type, false};
  }
  return TwinOfDerived(contents.combiner, contents.ints, contents.types, depth);
}

}  // namespace

MPI_Datatype BuildDenseTwin(MPI_Datatype type) {
  Piece p = Twin(type, 0);
  if (p.type == MPI_DATATYPE_NULL) return MPI_DATATYPE_NULL;
  MPI_Datatype out = MPI_DATATYPE_NULL;
  // Always a handle of our own (a duplicate of a named type), committed, with
  // the original's size: anything else means the tree was misread.
  if (PMPI_Type_dup(p.type, &out) != MPI_SUCCESS) out = MPI_DATATYPE_NULL;
  Drop(&p);
  if (out == MPI_DATATYPE_NULL) return out;
  PMPI_Type_commit(&out);
  if (SizeOf(out) != SizeOf(type)) PMPI_Type_free(&out);
  return out;
}

MPI_Datatype DenseTwinOf(MPI_Datatype type) {
  Layout l;
  if (GetLayout(type, &l) != MPI_SUCCESS) return MPI_DATATYPE_NULL;
  if (l.dense) return type;
  if (IsNamed(type)) return MPI_DATATYPE_NULL;  // pair types
  // Created on first use, after MPI_Init.
  static const TypeAttribute<OwnedType> twins(
      [](MPI_Datatype t) { return new OwnedType{BuildDenseTwin(t)}; });
  const OwnedType* twin = twins.Get(type);
  return twin != nullptr ? twin->type : MPI_DATATYPE_NULL;
}

uint64_t DenseViewBytes(int64_t count, const Layout& layout) {
  return layout.dense || count <= 0 ? 0 : AlignUp(static_cast<uint64_t>(count * layout.size));
}

int ViewDense(const void* user, int64_t count, MPI_Datatype type, const Layout& layout,
              const CollEnv& env, bool pack, Carver& carve, DenseView* view) {
  const bool bytes = !env.chosen_by_layout;
  const MPI_Datatype twin = layout.dense || bytes ? type : DenseTwinOf(type);
  if (bytes && layout.dense) {
    *view = DenseView{const_cast<void*>(user), static_cast<int>(count * layout.size),
                      MPI_BYTE, false};
    return MPI_SUCCESS;
  }
  if (!bytes && (layout.dense || twin == MPI_DATATYPE_NULL)) {
    *view = DenseView{const_cast<void*>(user), static_cast<int>(count), type, false};
    return MPI_SUCCESS;
  }
  void* scratch = carve.Take(static_cast<uint64_t>(count * layout.size));
  *view = bytes ? DenseView{scratch, static_cast<int>(count * layout.size), MPI_BYTE, true}
                : DenseView{scratch, static_cast<int>(count), twin, true};
  return pack ? PackBytes(user, count, type, layout, view->buf) : MPI_SUCCESS;
}

int ViewDenseBlocks(const void* user, int block, int p, MPI_Datatype type,
                    const Layout& layout, const CollEnv& env, bool pack, Carver& carve,
                    DenseView* view) {
  const int rc = ViewDense(user, static_cast<int64_t>(block) * p, type, layout, env, pack,
                           carve, view);
  view->count = view->type == MPI_BYTE && type != MPI_BYTE
                    ? static_cast<int>(block * layout.size)
                    : block;
  return rc;
}

}  // namespace colltune::shim
