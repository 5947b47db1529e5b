// MPI_Scatter's mock-ups (seed 004, GL21-GL22).
#ifndef COLLTUNE_SHIM_COLL_SCATTER_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_SCATTER_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<ScatterCall> kScatterAsBcast;
extern const AlgorithmImpl<ScatterCall> kScatterAsScatterv;
extern const AlgorithmImpl<ScatterCall> kScatterAsTuwTree;

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_SCATTER_ALGORITHMS_H_
