// MPI_Bcast's mock-ups (seed 004, GL9-GL10).
#ifndef COLLTUNE_SHIM_COLL_BCAST_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_BCAST_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<BcastCall> kBcastAsAllgatherv;
extern const AlgorithmImpl<BcastCall> kBcastAsScatterAllgather;

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_BCAST_ALGORITHMS_H_
