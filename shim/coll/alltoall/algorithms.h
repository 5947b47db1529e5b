// MPI_Alltoall's mock-up (seed 004, GL8).
#ifndef COLLTUNE_SHIM_COLL_ALLTOALL_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_ALLTOALL_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<AlltoallCall> kAlltoallAsAlltoallv;

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_ALLTOALL_ALGORITHMS_H_
