// MPI_Allgather's mock-ups (seed 004, GL1-GL4).
#ifndef COLLTUNE_SHIM_COLL_ALLGATHER_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_ALLGATHER_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"
#include "shim/coll/datatype.h"

namespace colltune::shim {

extern const AlgorithmImpl<AllgatherCall> kAllgatherAsGatherBcast;
extern const AlgorithmImpl<AllgatherCall> kAllgatherAsAlltoall;
extern const AlgorithmImpl<AllgatherCall> kAllgatherAsAllreduce;
extern const AlgorithmImpl<AllgatherCall> kAllgatherAsAllgatherv;

// This rank's contribution: its send buffer, or with MPI_IN_PLACE its own
// block of the receive buffer.
Block OwnBlock(const AllgatherCall& c, int rank);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_ALLGATHER_ALGORITHMS_H_
