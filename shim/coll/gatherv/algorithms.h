// MPI_Gatherv's algorithms (seed 000: the linear-time tree, and the padding
// of guideline 2).
//
// Irregular collectives have no message size all ranks know, so decisions
// for them depend on the communicator size only (calls.h: key 0). Each
// algorithm's eligibility is decided from rank-invariant values alone: the
// root, the communicator size and the scratch budget.
#ifndef COLLTUNE_SHIM_COLL_GATHERV_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_GATHERV_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"
#include "shim/coll/datatype.h"

namespace colltune::shim {

extern const AlgorithmImpl<GathervCall> kGathervAsTuwTree;
extern const AlgorithmImpl<GathervCall> kGathervAsAllreduceGather;

// This rank's block: its send buffer, or at a root using MPI_IN_PLACE
// nothing to move (buf null).
Block OwnBlock(const GathervCall& c, int rank);
// This rank's block size in bytes (at an in-place root, its receive block).
int64_t OwnBytes(const GathervCall& c, int rank);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_GATHERV_ALGORITHMS_H_
