// The linear-time gather/scatter trees of seed 000 (Träff 2019, Lemmas 1-3),
// shared by gatherv_as_tuw_tree, scatterv_as_tuw_tree, gather_as_tuw_tree and
// scatter_as_tuw_tree.
//
// Processes form an ordered (incomplete) hypercube over their ranks. In round
// d two adjacent subcubes of 2^d consecutive ranks merge: each has a *fixed
// root* (its last rank, or p-1 for the incomplete last subcube) that knows the
// subcube's data volume and its *gather root*, which holds that data. The two
// fixed roots exchange what they know; the gather root of the side with more
// data (always the side holding the collective's root) keeps the merged data,
// and the other gather root will send it its own: the root receives
// sum_{i != r} m_i bytes over ceil(log2 p) rounds, instead of log p times the
// data (binomial trees) or p start-ups (linear algorithms). Each fixed root
// tells its gather root the outcome. Blocks stay in rank order throughout: a
// gather root's data is a set of rank ranges in increasing order.
//
// Graceful degradation (§3): when two subcubes without the root merge, a side
// whose data exceeds `threshold` bytes leaves the tree; its gather root sends
// its data straight to the root. No gather root other than
// the collective root ever holds more than 2 * threshold bytes, which bounds
// the scratch memory rank-invariantly.
//
// Nothing here needs global knowledge of block sizes: each process knows only
// its own (MPI_Gatherv's contract for non-roots). When all sizes are known
// (the regular collectives), BuildLocal computes the same tree without
// communication.
#ifndef COLLTUNE_SHIM_COLL_TUW_TREE_H_
#define COLLTUNE_SHIM_COLL_TUW_TREE_H_

#include <cstdint>
#include <vector>

#include "shim/mpi/mpi.h"

namespace colltune::shim::tuw {

// A contiguous piece of a gather root's data: ranks [lo, hi] (minus the
// subcubes inside that left the tree), `bytes` long, coming from (gather) or
// going to (scatter) process `peer`. The gather root's own block is the piece
// whose peer is itself.
struct Piece {
  int peer;
  int lo, hi;
  int64_t bytes;
};

// A subcube that left the tree: its gather root and rank range.
struct Direct {
  int peer, lo, hi;
};

// What one process does with the data once the tree is built.
struct Plan {
  int parent = -1;       // where this process's data goes; -1 at the root
  bool direct = false;   // it left the tree: parent is the root
  int lo = 0, hi = 0;    // the rank range of the subcube it holds (if direct)
  int64_t held = 0;      // bytes it holds when sending (own block included)
  std::vector<Piece> pieces;  // own block and children, in rank order
  std::vector<Direct> leavers;  // at the root: the subcubes that left the tree
};

// No degradation: every block travels through the tree.
inline constexpr int64_t kNoThreshold = INT64_MAX / 4;

// The subtree size beyond which data goes straight to the root: 256 KiB, or
// less when the scratch budget (rank-invariant: broadcast at MPI_Init) cannot
// hold two such subtrees. A subtree of 256 KiB costs a few times the
// start-up latency to forward on shared memory and InfiniBand alike, so
// beyond it one more hop costs more than one more start-up at the root.
inline constexpr int64_t kDefaultThreshold = 256 << 10;
inline int64_t ThresholdFor(uint64_t mem_budget) {
  const uint64_t half = mem_budget / 2;
  return half < static_cast<uint64_t>(kDefaultThreshold) ? static_cast<int64_t>(half)
                                                         : kDefaultThreshold;
}
// The most scratch any rank takes with `threshold` (rank-invariant).
inline uint64_t ScratchFor(int64_t threshold) { return 2 * static_cast<uint64_t>(threshold); }

// Builds the tree with at most ceil(log2 p) rounds of constant-size messages
// on `comm` (a private communicator: tag kTreeTag). `my_bytes` is this
// process's block size; the root, which knows every block size (MPI's
// contract), passes them all in `all_bytes` and works out the whole tree
// without messages, so merges with the root's subcube need none either.
// Returns the MPI error code.
int Build(MPI_Comm comm, int rank, int size, int root, int64_t my_bytes,
          const int64_t* all_bytes, int64_t threshold, Plan* plan);

// The same tree when every block has `bytes` bytes, computed locally.
void BuildLocal(int rank, int size, int root, int64_t bytes, int64_t threshold,
                Plan* plan);

// At the root: which sender's message carries rank k's block, for every k,
// given the root's children and the subcubes that left the tree (its plan).
// A direct sender's range excludes smaller subcubes inside it that left too.
void Owners(const Plan& root_plan, int root, std::vector<int>* owner);

inline constexpr int kTreeTag = 1;
inline constexpr int kDataTag = 2;

}  // namespace colltune::shim::tuw

#endif  // COLLTUNE_SHIM_COLL_TUW_TREE_H_
