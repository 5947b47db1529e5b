// MPI_Reduce_scatter's mock-ups (docs/algorithms.md, "Issue 16").
//
// MPI requires the same recvcounts, datatype and operation on every rank, so
// the length of the vector reduced, each block's offset in it and the
// largest block are rank-invariant, and so is every verdict built on them.
#ifndef COLLTUNE_SHIM_COLL_REDUCE_SCATTER_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_REDUCE_SCATTER_ALGORITHMS_H_

#include <cstdint>

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<ReduceScatterCall> kReducescatterAsReduceScatterv;
extern const AlgorithmImpl<ReduceScatterCall> kReducescatterAsAllreduce;
extern const AlgorithmImpl<ReduceScatterCall> kReducescatterAsReducescatterblockPadded;

// The counts of one call, added up.
struct VectorShape {
  int64_t total = 0;    // elements of the vector reduced (the sum of counts)
  int64_t largest = 0;  // the largest block
  int64_t offset = 0;   // where this rank's block starts in the vector
};

// False if a count is negative or the vector does not fit an int count
// (the library then reports the error, or handles what no mock-up can).
bool ShapeOf(const ReduceScatterCall& c, int p, int rank, VectorShape* s);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_REDUCE_SCATTER_ALGORITHMS_H_
