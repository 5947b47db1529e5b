#include "shim/coll/type_cache.h"

#include <mutex>

#include "shim/coll/type_contents.h"

namespace colltune::shim {
namespace {

int DeleteCached(MPI_Datatype, int, void* value, void*) {
  auto* cached = static_cast<MPI_Datatype*>(value);
  if (*cached != MPI_DATATYPE_NULL) PMPI_Type_free(cached);
  delete cached;
  return MPI_SUCCESS;
}

// Every cache builds under this one lock: building is rare (once per type).
std::mutex& BuildLock() {
  static std::mutex mu;
  return mu;
}

}  // namespace

TypeCache::TypeCache(Build build) : build_(build), keyval_(NewTypeKeyval(&DeleteCached)) {}

MPI_Datatype TypeCache::Get(MPI_Datatype type) const {
  if (keyval_ == MPI_KEYVAL_INVALID) return MPI_DATATYPE_NULL;
  const auto cached = [&](MPI_Datatype* out) {
    void* value = nullptr;
    int found = 0;
    if (PMPI_Type_get_attr(type, keyval_, &value, &found) != MPI_SUCCESS || !found) {
      return false;
    }
    *out = *static_cast<MPI_Datatype*>(value);
    return true;
  };
  MPI_Datatype known;
  if (cached(&known)) return known;  // every call after the first: no lock
  // Looking again under the lock: a second set_attr would free the type a
  // first thread already returned.
  std::lock_guard<std::mutex> lock(BuildLock());
  if (cached(&known)) return known;
  auto* made = new MPI_Datatype(build_(type));
  if (PMPI_Type_set_attr(type, keyval_, made) != MPI_SUCCESS) {
    DeleteCached(type, keyval_, made, nullptr);
    return MPI_DATATYPE_NULL;
  }
  return *made;
}

}  // namespace colltune::shim
