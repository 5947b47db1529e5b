#include "shim/coll/whole_type.h"

#include <mutex>

#include "shim/coll/datatype.h"
#include "shim/coll/type_cache.h"
#include "shim/coll/type_contents.h"

namespace colltune::shim {
namespace {

// A type's contiguous types, one per count, kept until the type is freed:
// a handle handed out is never freed while the type lives.
struct Wholes {
  std::mutex mu;
  int n = 0;
  int counts[kMaxWholeCounts] = {};
  MPI_Datatype types[kMaxWholeCounts] = {};
  ~Wholes() {
    for (int i = 0; i < n; ++i) PMPI_Type_free(&types[i]);
  }
};

}  // namespace

MPI_Datatype WholeOf(MPI_Datatype type, int count) {
  Layout l;
  if (count < 2 || IsNamed(type) || GetLayout(type, &l) != MPI_SUCCESS || l.dense) {
    return MPI_DATATYPE_NULL;
  }
  static const TypeAttribute<Wholes> wholes([](MPI_Datatype) { return new Wholes; });
  Wholes* w = wholes.Get(type);
  if (w == nullptr) return MPI_DATATYPE_NULL;
  std::lock_guard<std::mutex> lock(w->mu);
  for (int i = 0; i < w->n; ++i) {
    if (w->counts[i] == count) return w->types[i];
  }
  MPI_Datatype whole = MPI_DATATYPE_NULL;
  if (w->n == kMaxWholeCounts || PMPI_Type_contiguous(count, type, &whole) != MPI_SUCCESS) {
    return MPI_DATATYPE_NULL;
  }
  PMPI_Type_commit(&whole);
  w->counts[w->n] = count;
  w->types[w->n++] = whole;
  return whole;
}

}  // namespace colltune::shim
