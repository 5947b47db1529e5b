#include "shim/coll/whole_type.h"

#include <mutex>

#include "shim/coll/datatype.h"
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
};

int DeleteWholes(MPI_Datatype, int, void* value, void*) {
  auto* w = static_cast<Wholes*>(value);
  for (int i = 0; i < w->n; ++i) PMPI_Type_free(&w->types[i]);
  delete w;
  return MPI_SUCCESS;
}

// The type's Wholes, made on first use; null if MPI refuses the attribute.
Wholes* WholesOf(MPI_Datatype type) {
  static const int keyval = NewTypeKeyval(&DeleteWholes);
  if (keyval == MPI_KEYVAL_INVALID) return nullptr;
  const auto cached = [&](Wholes** out) {
    void* value = nullptr;
    int found = 0;
    if (PMPI_Type_get_attr(type, keyval, &value, &found) != MPI_SUCCESS || !found) {
      return false;
    }
    *out = static_cast<Wholes*>(value);
    return true;
  };
  Wholes* w = nullptr;
  if (cached(&w)) return w;
  static std::mutex mu;  // one maker at a time, looking again under it
  std::lock_guard<std::mutex> lock(mu);
  if (cached(&w)) return w;
  w = new Wholes;
  if (PMPI_Type_set_attr(type, keyval, w) != MPI_SUCCESS) {
    delete w;
    return nullptr;
  }
  return w;
}

}  // namespace

MPI_Datatype WholeOf(MPI_Datatype type, int count) {
  Layout l;
  if (count < 2 || IsNamed(type) || GetLayout(type, &l) != MPI_SUCCESS || l.dense) {
    return MPI_DATATYPE_NULL;
  }
  Wholes* w = WholesOf(type);
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
