// Something derived from a user's datatype (its dense twin, its normal
// form, its contiguous types), made once on first use and kept on the
// user's type as an MPI attribute: it dies with the type, MPI_Type_dup does
// not copy it, and a handle MPI hands out again after a free starts without
// one.
#ifndef COLLTUNE_SHIM_COLL_TYPE_CACHE_H_
#define COLLTUNE_SHIM_COLL_TYPE_CACHE_H_

#include <mutex>

#include "shim/coll/type_contents.h"
#include "shim/mpi/mpi.h"

namespace colltune::shim {

// Makers run under this one lock (making is rare: once per type).
std::mutex& TypeAttributeLock();

// A T kept on each datatype, made by `make` (never null) on the first Get
// for that handle and deleted with the type. Makers must not use a
// TypeAttribute themselves.
template <class T>
class TypeAttribute {
 public:
  using Make = T* (*)(MPI_Datatype type);
  explicit TypeAttribute(Make make) : make_(make), keyval_(NewTypeKeyval(&Delete)) {}

  // Null if MPI refuses the attribute. Reads after the first take no lock.
  T* Get(MPI_Datatype type) const {
    if (keyval_ == MPI_KEYVAL_INVALID) return nullptr;
    if (T* known = Find(type)) return known;
    // Looking again under the lock: a second set_attr would delete the T a
    // first thread already returned.
    std::lock_guard<std::mutex> lock(TypeAttributeLock());
    if (T* known = Find(type)) return known;
    T* made = make_(type);
    if (PMPI_Type_set_attr(type, keyval_, made) != MPI_SUCCESS) {
      delete made;
      return nullptr;
    }
    return made;
  }

 private:
  static int Delete(MPI_Datatype, int, void* value, void*) {
    delete static_cast<T*>(value);
    return MPI_SUCCESS;
  }
  T* Find(MPI_Datatype type) const {
    void* value = nullptr;
    int found = 0;
    if (PMPI_Type_get_attr(type, keyval_, &value, &found) != MPI_SUCCESS || !found) {
      return nullptr;
    }
    return static_cast<T*>(value);
  }

  Make make_;
  int keyval_;
};

// A derived type a TypeAttribute keeps: freed with it (MPI_DATATYPE_NULL
// for none).
struct OwnedType {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  ~OwnedType() {
    if (type != MPI_DATATYPE_NULL) PMPI_Type_free(&type);
  }
};

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_TYPE_CACHE_H_
