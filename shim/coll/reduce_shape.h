// The vector a reduce-scatter reduces, as its mock-ups need it. MPI requires
// the same counts, datatype and operation on every rank, so everything here
// is rank-invariant, and so is every verdict built on it.
#ifndef COLLTUNE_SHIM_COLL_REDUCE_SHAPE_H_
#define COLLTUNE_SHIM_COLL_REDUCE_SHAPE_H_

#include <climits>
#include <cstdint>

#include "shim/coll/calls.h"
#include "shim/coll/datatype.h"

namespace colltune::shim {

// The counts of one MPI_Reduce_scatter, added up.
struct VectorShape {
  int64_t total = 0;    // elements of the vector reduced (the sum of counts)
  int64_t largest = 0;  // the largest block
  int64_t offset = 0;   // where this rank's block starts in the vector
};

// False if a count is negative or the vector does not fit an int count
// (the library then reports the error, or handles what no mock-up can).
bool ShapeOf(const ReduceScatterCall& c, int p, int rank, VectorShape* s);

// MPI_Reduce_scatter_block: p * recvcount, the length of the vector
// reduced, if it fits an int, else -1.
inline int64_t VectorCount(const ReduceScatterBlockCall& c, int p) {
  const int64_t n = static_cast<int64_t>(c.recvcount) * p;
  return c.recvcount >= 0 && n <= INT_MAX ? n : -1;
}

// A vector of n elements cut into p blocks of ceil(n/p) elements, as
// MPI_Reduce_scatter_block needs it (GL6, GL15): padded to p whole blocks
// when p does not divide n.
struct PaddedBlocks {
  Layout layout;
  int64_t block = 0;     // elements per rank
  bool padded = false;   // p does not divide n
  uint64_t block_bytes = 0;   // one block's span
  uint64_t padded_bytes = 0;  // padded: p blocks' span
  uint64_t temp_bytes = 0;    // padded: what a typed copy of n elements needs
};

// False for a negative count or a datatype whose layout is unknown.
bool PlanPaddedBlocks(int count, MPI_Datatype datatype, int p, PaddedBlocks* plan);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_REDUCE_SHAPE_H_
