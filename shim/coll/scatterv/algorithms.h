// MPI_Scatterv's algorithms (seed 000: the linear-time tree, and the padding
// of guideline 2). Decisions depend on the communicator size only, as for
// MPI_Gatherv (gatherv/algorithms.h).
#ifndef COLLTUNE_SHIM_COLL_SCATTERV_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_SCATTERV_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"
#include "shim/coll/datatype.h"

namespace colltune::shim {

extern const AlgorithmImpl<ScattervCall> kScattervAsTuwTree;
extern const AlgorithmImpl<ScattervCall> kScattervAsAllreduceScatter;

// Where this rank's block goes: its receive buffer, or at a root using
// MPI_IN_PLACE nowhere (buf null).
Block OwnBlock(const ScattervCall& c, int rank);
// This rank's block size in bytes (at an in-place root, its send block).
int64_t OwnBytes(const ScattervCall& c, int rank);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_SCATTERV_ALGORITHMS_H_
