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

// The layout of a datatype from MPI's own queries.
int QueryLayout(MPI_Datatype type, Layout* layout) {
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

// Predefined datatype handles never change during a run, so their layouts
// are looked up once. Open addressing on the handle's bits; immutable after
// construction, which C++ makes thread-safe (a function-local static).
class PredefinedLayouts {
 public:
  PredefinedLayouts() {
    const MPI_Datatype types[] = {
      MPI_BYTE,
      MPI_CHAR,
      MPI_SIGNED_CHAR,
      MPI_UNSIGNED_CHAR,
      MPI_SHORT,
      MPI_UNSIGNED_SHORT,
      MPI_INT,
      MPI_UNSIGNED,
      MPI_LONG,
      MPI_UNSIGNED_LONG,
      MPI_LONG_LONG_INT,
      MPI_UNSIGNED_LONG_LONG,
      MPI_FLOAT,
      MPI_DOUBLE,
      MPI_LONG_DOUBLE,
      MPI_WCHAR,
      MPI_C_BOOL,
      MPI_INT8_T,
      MPI_UINT8_T,
      MPI_INT16_T,
      MPI_UINT16_T,
      MPI_INT32_T,
      MPI_UINT32_T,
      MPI_INT64_T,
      MPI_UINT64_T,
      MPI_AINT,
      MPI_OFFSET,
      MPI_COUNT,
      MPI_C_FLOAT_COMPLEX,
      MPI_C_DOUBLE_COMPLEX,
      MPI_C_LONG_DOUBLE_COMPLEX,
      MPI_FLOAT_INT,
      MPI_DOUBLE_INT,
      MPI_LONG_INT,
      MPI_2INT,
      MPI_SHORT_INT,
      MPI_LONG_DOUBLE_INT,
      MPI_PACKED,
      MPI_INTEGER,
      MPI_REAL,
      MPI_DOUBLE_PRECISION,
      MPI_LOGICAL,
      MPI_CHARACTER,
      MPI_COMPLEX,
      MPI_DOUBLE_COMPLEX
    };
    for (MPI_Datatype t : types) {
      if (t == MPI_DATATYPE_NULL) continue;  // a type this library lacks
      Layout l;
      if (QueryLayout(t, &l) != MPI_SUCCESS) continue;
      for (size_t i = Hash(t);; i = (i + 1) % kSlots) {
        if (!slots_[i].used) {
          slots_[i] = Slot{true, t, l};
          break;
        }
        if (slots_[i].type == t) break;  // an alias (MPI_LONG_LONG ...)
      }
    }
  }

  const Layout* Find(MPI_Datatype t) const {
    for (size_t i = Hash(t);; i = (i + 1) % kSlots) {
      if (!slots_[i].used) return nullptr;
      if (slots_[i].type == t) return &slots_[i].layout;
    }
  }

 private:
  static constexpr size_t kSlots = 128;  // over twice the entries
  struct Slot {
    bool used = false;
    MPI_Datatype type{};
    Layout layout;
  };
  static size_t Hash(MPI_Datatype t) {
    uint64_t v = 0;
    memcpy(&v, &t, sizeof t < sizeof v ? sizeof t : sizeof v);
    v *= 0x9e3779b97f4a7c15ULL;
    return static_cast<size_t>(v >> 57);  // 7 bits: 0..127
  }
  Slot slots_[kSlots];
};

const PredefinedLayouts& Predefined() {
  static const PredefinedLayouts table;
  return table;
}

}  // namespace

int GetLayout(MPI_Datatype type, Layout* layout) {
  if (const Layout* known = Predefined().Find(type)) {
    *layout = *known;
    return MPI_SUCCESS;
  }
  return QueryLayout(type, layout);
}

bool IsPredefinedType(MPI_Datatype type) { return Predefined().Find(type) != nullptr; }

int64_t type_size::Ask(MPI_Datatype type) {
  if (const Layout* known = Predefined().Find(type)) {
    tls_last = {type, known->size, true};
    return known->size;
  }
  int size = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS) return -1;
  return size;
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

int GetLayouts(MPI_Datatype sendtype, bool in_place, MPI_Datatype recvtype, Layout* send,
               Layout* recv) {
  const int rc = GetLayout(recvtype, recv);
  return rc != MPI_SUCCESS || in_place ? rc : GetLayout(sendtype, send);
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

Block BlockOf(const void* buf, int index, int count, MPI_Datatype type) {
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  return Block{static_cast<const char*>(buf) +
                   static_cast<MPI_Aint>(index) * count * extent,
               count, type};
}

int PackBlock(const Block& b, void* bytes) {
  Layout l;
  int rc = GetLayout(b.type, &l);
  if (rc != MPI_SUCCESS) return rc;
  return PackBytes(b.buf, b.count, b.type, l, bytes);
}

void* EmptyBlockAddress() {
  // Never written: every call given this address receives zero bytes.
  alignas(64) static char nothing[kAlign];
  return nothing;
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
