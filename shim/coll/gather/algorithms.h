// MPI_Gather's mock-ups (seed 004, GL11-GL13).
#ifndef COLLTUNE_SHIM_COLL_GATHER_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_GATHER_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<GatherCall> kGatherAsGatherv;

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_GATHER_ALGORITHMS_H_
