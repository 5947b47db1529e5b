#include "shim/coll/datatype.h"

#include <climits>
#include <cstring>

namespace colltune::shim {
namespace {

// MPI_Pack takes int sizes; larger copies go in chunks of whole elements.
int64_t ChunkElements(const Layout& layout) {
  if (layout.size <= 0) return INT_MAX;
  int64_t n = INT_MAX / layout.size;
  return n > 0 ? n : 1;
}

}  // namespace

int GetLayout(MPI_Datatype type, Layout* layout) {
  int size = 0;
  int rc = PMPI_Type_size(type, &size);
  if (rc != MPI_SUCCESS) return rc;
  layout->size = size;
  rc = PMPI_Type_get_extent(type, &layout->lb, &layout->extent);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Type_get_true_extent(type, &layout->true_lb, &layout->true_extent);
  if (rc != MPI_SUCCESS) return rc;
  int ni = 0, na = 0, nd = 0, combiner = 0;
  rc = PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
  if (rc != MPI_SUCCESS) return rc;
  // Predefined pair types (MPI_DOUBLE_INT, ...) can have gaps, hence the
  // size/extent checks even for named types.
  layout->dense = combiner == MPI_COMBINER_NAMED && layout->lb == 0 &&
                  layout->true_lb == 0 && layout->extent == size &&
                  layout->true_extent == size;
  return MPI_SUCCESS;
}

int PackBytes(const void* buf, int64_t count, MPI_Datatype type,
              const Layout& layout, void* bytes) {
  if (count <= 0 || layout.size == 0) return MPI_SUCCESS;
  if (layout.dense) {
    memcpy(bytes, buf, static_cast<size_t>(count * layout.size));
    return MPI_SUCCESS;
  }
  const int64_t chunk = ChunkElements(layout);
  char* out = static_cast<char*>(bytes);
  for (int64_t done = 0; done < count;) {
    const int n = static_cast<int>(count - done < chunk ? count - done : chunk);
    int position = 0;
    int rc = PMPI_Pack(layout.At(buf, done), n, type, out,
                       static_cast<int>(n * layout.size), &position,
                       MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) return rc;
    out += n * layout.size;
    done += n;
  }
  return MPI_SUCCESS;
}

int UnpackBytes(const void* bytes, void* buf, int64_t count, MPI_Datatype type,
                const Layout& layout) {
  if (count <= 0 || layout.size == 0) return MPI_SUCCESS;
  if (layout.dense) {
    memcpy(buf, bytes, static_cast<size_t>(count * layout.size));
    return MPI_SUCCESS;
  }
  const int64_t chunk = ChunkElements(layout);
  const char* in = static_cast<const char*>(bytes);
  for (int64_t done = 0; done < count;) {
    const int n = static_cast<int>(count - done < chunk ? count - done : chunk);
    int position = 0;
    // MPI_Unpack takes a non-const input buffer in MPI-2 era signatures.
    int rc = PMPI_Unpack(const_cast<char*>(in),
                         static_cast<int>(n * layout.size), &position,
                         layout.At(buf, done), n, type, MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) return rc;
    in += n * layout.size;
    done += n;
  }
  return MPI_SUCCESS;
}

int CopyTyped(const void* src, void* dst, int64_t count, MPI_Datatype type,
              const Layout& layout, void* temp) {
  if (count <= 0 || layout.size == 0 || src == dst) return MPI_SUCCESS;
  if (layout.dense) {
    memmove(dst, src, static_cast<size_t>(count * layout.size));
    return MPI_SUCCESS;
  }
  int rc = PackBytes(src, count, type, layout, temp);
  if (rc != MPI_SUCCESS) return rc;
  return UnpackBytes(temp, dst, count, type, layout);
}

bool IsPredefinedOp(MPI_Op op) {
  const MPI_Op predefined[] = {
      MPI_MAX,  MPI_MIN,  MPI_SUM,    MPI_PROD,   MPI_LAND,
      MPI_BAND, MPI_LOR,  MPI_BOR,    MPI_LXOR,   MPI_BXOR,
      MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP,
  };
  for (MPI_Op p : predefined) {
    if (op == p) return true;
  }
  return false;
}

}  // namespace colltune::shim
