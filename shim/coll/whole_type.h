// Seed 003's GL1: count elements of a datatype described as one element of
// MPI_Type_contiguous(count, type). The type map is the same, so a rank may
// describe its data either way whatever the others do; a library may commit
// the contiguous type into a better internal form than it keeps for the
// repetition (seed 003 measures up to 3x either way).
#ifndef COLLTUNE_SHIM_COLL_WHOLE_TYPE_H_
#define COLLTUNE_SHIM_COLL_WHOLE_TYPE_H_

#include "shim/mpi/mpi.h"

namespace colltune::shim {

// Distinct counts kept per type; a type used with more passes as it is.
inline constexpr int kMaxWholeCounts = 8;

// The committed MPI_Type_contiguous(count, type), built once per (type,
// count) and kept on `type` (freed with it); MPI_DATATYPE_NULL where it
// would change nothing or is not kept: a count below 2, a predefined or
// dense type, a type already used with kMaxWholeCounts other counts.
MPI_Datatype WholeOf(MPI_Datatype type, int count);

// (*count, *type) as (1, WholeOf(*type, *count)) where there is one.
inline void UseWhole(int* count, MPI_Datatype* type) {
  const MPI_Datatype whole = WholeOf(*type, *count);
  if (whole == MPI_DATATYPE_NULL) return;
  *count = 1;
  *type = whole;
}

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_WHOLE_TYPE_H_
