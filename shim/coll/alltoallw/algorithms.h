// MPI_Alltoallw's mock-ups (docs/algorithms.md).
#ifndef COLLTUNE_SHIM_COLL_ALLTOALLW_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_ALLTOALLW_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<AlltoallwCall> kAlltoallwAsAlltoallv;
extern const AlgorithmImpl<AlltoallwCall> kAlltoallwAsPairwiseSendrecv;

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_ALLTOALLW_ALGORITHMS_H_
