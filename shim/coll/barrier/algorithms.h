// MPI_Barrier's mock-ups (docs/algorithms.md).
#ifndef COLLTUNE_SHIM_COLL_BARRIER_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_BARRIER_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<BarrierCall> kBarrierAsAllreduce;
extern const AlgorithmImpl<BarrierCall> kBarrierAsDissemination;

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_BARRIER_ALGORITHMS_H_
