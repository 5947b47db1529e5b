// MPI_Allreduce's mock-ups (seed 004, GL5-GL7).
#ifndef COLLTUNE_SHIM_COLL_ALLREDUCE_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_ALLREDUCE_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<AllreduceCall> kAllreduceAsReduceBcast;
extern const AlgorithmImpl<AllreduceCall> kAllreduceAsReducescatterblockAllgather;
extern const AlgorithmImpl<AllreduceCall> kAllreduceAsReducescatterAllgatherv;

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_ALLREDUCE_ALGORITHMS_H_
