// Count and displacement arrays for mock-ups built on irregular (v)
// collectives, and the bound that keeps their int displacements valid.
#ifndef COLLTUNE_SHIM_COLL_BLOCKS_H_
#define COLLTUNE_SHIM_COLL_BLOCKS_H_

#include <climits>
#include <cstdint>
#include <optional>

#include "shim/coll/algorithm.h"
#include "shim/coll/datatype.h"

namespace colltune::shim {

// True if p blocks of `bytes` bytes fit int counts and displacements. A
// rank-invariant bound: `bytes` is the call's message-size key, and element
// counts never exceed byte counts (MPI_Type_size >= 1; zero-size types move
// nothing, see EqualBlocks).
inline bool FitsIntBlocks(int64_t bytes, int p) {
  return bytes >= 0 && bytes * p <= INT_MAX;
}

// For rooted mock-ups over p blocks of the call's key size: the root is valid
// and the blocks fit int counts (both rank-invariant).
template <typename Call>
bool RootedBlocksFit(const Call& c, const CollEnv& env) {
  return RootInRange(c.root, env) && FitsIntBlocks(c.KeyBytes(env), env.size);
}

// Scratch for `copies` buffers of p blocks of the call's key size, or
// nullopt when p blocks do not fit int counts (rank-invariant).
template <typename Call>
std::optional<uint64_t> BlockBuffers(const Call& c, const CollEnv& env, int copies) {
  const int64_t bytes = c.KeyBytes(env);
  if (!FitsIntBlocks(bytes, env.size)) return std::nullopt;
  return copies * AlignUp(static_cast<uint64_t>(bytes) * env.size);
}

// Scratch for `arrays` int arrays of p entries each.
inline uint64_t IntArraysBytes(int p, int arrays) {
  return arrays * AlignUp(sizeof(int) * static_cast<uint64_t>(p));
}

// An array of p ints carved from a call's one scratch lease (a mock-up takes
// a single lease per call: a second one, while the pool's buffer is held,
// would be a private allocation).
inline int* TakeInts(Carver& carve, int p) {
  return static_cast<int*>(carve.Take(sizeof(int) * static_cast<uint64_t>(p)));
}

// counts[i] = count, displs[i] = i * count. A displacement that would
// overflow can only come from a zero-size datatype, which moves no data, so
// it is set to 0.
void EqualBlocks(int p, int count, int* counts, int* displs);

// n elements split into p consecutive blocks whose sizes differ by at most
// one (the larger first), as MPI_Reduce_scatter allows.
void BalancedBlocks(int p, int n, int* counts, int* displs);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_BLOCKS_H_
