// A datatype derived from a user's datatype (its dense twin, its normal
// form), built once on first use and kept on the user's type as an MPI
// attribute: it dies with the type, MPI_Type_dup does not copy it, and a
// handle MPI hands out again after a free starts without one.
#ifndef COLLTUNE_SHIM_COLL_TYPE_CACHE_H_
#define COLLTUNE_SHIM_COLL_TYPE_CACHE_H_

#include "shim/mpi/mpi.h"

namespace colltune::shim {

// One kind of derived type, built by `build` (a committed type the cache
// then owns, or MPI_DATATYPE_NULL for none). Builders run under one lock and
// must not use a TypeCache themselves.
class TypeCache {
 public:
  using Build = MPI_Datatype (*)(MPI_Datatype type);
  explicit TypeCache(Build build);

  // The type `build` made of `type`, building it on the first call for this
  // handle (one builder at a time); MPI_DATATYPE_NULL if there is none or
  // MPI refuses the attribute. Reads after the first take no lock.
  MPI_Datatype Get(MPI_Datatype type) const;

 private:
  Build build_;
  int keyval_;
};

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_TYPE_CACHE_H_
