// MPI_Reduce's mock-ups (seed 004, GL14-GL16).
#ifndef COLLTUNE_SHIM_COLL_REDUCE_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_REDUCE_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<ReduceCall> kReduceAsAllreduce;
extern const AlgorithmImpl<ReduceCall> kReduceAsReducescatterblockGather;
extern const AlgorithmImpl<ReduceCall> kReduceAsReducescatterGatherv;

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_REDUCE_ALGORITHMS_H_
