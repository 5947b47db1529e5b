// MPI_Reduce_scatter_block's mock-ups (seed 004, GL17-GL19).
#ifndef COLLTUNE_SHIM_COLL_REDUCE_SCATTER_BLOCK_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_REDUCE_SCATTER_BLOCK_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include <climits>

#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<ReduceScatterBlockCall> kReducescatterblockAsReduceScatter;
extern const AlgorithmImpl<ReduceScatterBlockCall> kReducescatterblockAsReducescatter;
extern const AlgorithmImpl<ReduceScatterBlockCall> kReducescatterblockAsAllreduce;

// p * recvcount, the length of the vector being reduced, if it fits an int
// (a rank-invariant test), else -1.
inline int64_t VectorCount(const ReduceScatterBlockCall& c, int p) {
  const int64_t n = static_cast<int64_t>(c.recvcount) * p;
  return c.recvcount >= 0 && n <= INT_MAX ? n : -1;
}

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_REDUCE_SCATTER_BLOCK_ALGORITHMS_H_
