// MPI_Alltoallv's mock-ups (docs/algorithms.md).
#ifndef COLLTUNE_SHIM_COLL_ALLTOALLV_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_ALLTOALLV_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<AlltoallvCall> kAlltoallvAsAlltoallPadded;
extern const AlgorithmImpl<AlltoallvCall> kAlltoallvAsPairwiseSendrecv;

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_ALLTOALLV_ALGORITHMS_H_
