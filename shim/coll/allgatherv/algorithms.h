// MPI_Allgatherv's mock-ups (docs/algorithms.md, "Issue 16").
//
// Every rank holds all counts, so the total gathered and the largest block,
// in bytes (count times MPI_Type_size, equal on all ranks by MPI's
// type-signature rule even where ranks describe blocks with different
// datatypes), are rank-invariant: eligibility depends on them and on the
// communicator size only.
#ifndef COLLTUNE_SHIM_COLL_ALLGATHERV_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_ALLGATHERV_ALGORITHMS_H_

#include <cstdint>

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"
#include "shim/coll/datatype.h"

namespace colltune::shim {

extern const AlgorithmImpl<AllgathervCall> kAllgathervAsGathervBcast;
extern const AlgorithmImpl<AllgathervCall> kAllgathervAsAllgatherPadded;

// This rank's contribution: its send buffer, or with MPI_IN_PLACE its own
// block of the receive buffer (recvcounts[rank] elements at displs[rank]).
Block OwnBlock(const AllgathervCall& c, int rank);

// The largest block in bytes, or -1 if a count is negative or the type
// invalid.
int64_t LargestBlockBytes(const AllgathervCall& c, int p);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_ALLGATHERV_ALGORITHMS_H_
