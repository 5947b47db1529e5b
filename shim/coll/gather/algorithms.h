// MPI_Gather's mock-ups (seed 004, GL11-GL13).
#ifndef COLLTUNE_SHIM_COLL_GATHER_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_GATHER_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"
#include "shim/coll/datatype.h"

namespace colltune::shim {

extern const AlgorithmImpl<GatherCall> kGatherAsAllgather;
extern const AlgorithmImpl<GatherCall> kGatherAsGatherv;
extern const AlgorithmImpl<GatherCall> kGatherAsReduce;
extern const AlgorithmImpl<GatherCall> kGatherAsTuwTree;

// This rank's contribution: its send buffer, or at a root using MPI_IN_PLACE
// its own block of the receive buffer.
Block OwnBlock(const GatherCall& c, int rank);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_GATHER_ALGORITHMS_H_
