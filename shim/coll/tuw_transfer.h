// Moving the data along a tree of tuw_tree.h (seed 000 §3).
//
// Each process posts its receives non-blocking (the order in which children
// finish does not matter) and sends once. Intermediate processes keep their
// subtree's blocks packed, in rank order, and exchange them as MPI_PACKED,
// which matches any type signature: packed bytes are the common element type
// of processes that describe their blocks with different datatypes. The root
// receives (gather) or sends (scatter) each child's blocks in place, with an
// indexed datatype over its own displacements per child, so it copies
// nothing; when a child's blocks are contiguous and in rank order in the
// root's buffer the plain datatype and a count do.
#ifndef COLLTUNE_SHIM_COLL_TUW_TRANSFER_H_
#define COLLTUNE_SHIM_COLL_TUW_TRANSFER_H_

#include <climits>
#include <optional>

#include "shim/coll/algorithm.h"
#include "shim/coll/datatype.h"
#include "shim/coll/env.h"
#include "shim/coll/scratch.h"
#include "shim/coll/tuw_tree.h"

namespace colltune::shim::tuw {

// The root's buffer: block k is counts[k] elements of `type` at displacement
// displs[k] (in extents); regular collectives pass counts = displs = null and
// `count`, meaning block k holds `count` elements at k * count.
struct RootBuffer {
  void* buf;
  MPI_Datatype type;
  const int* counts;
  const int* displs;
  int count;
  int Count(int k) const { return counts ? counts[k] : count; }
  int64_t Displ(int k) const {
    return displs ? displs[k] : static_cast<int64_t>(k) * count;
  }
};

// One call of a TUW algorithm.
struct Call {
  int root;
  int64_t my_bytes;  // this process's block size (at an in-place root too)
  // Every block has my_bytes (MPI_Gather, MPI_Scatter): the tree is computed
  // locally. Otherwise it is built with messages, the root taking all sizes
  // from at_root.
  bool regular;
  Block own;  // this process's block; at an in-place root, null buf
  RootBuffer at_root;
};

// The scratch bound of a call (rank-invariant), or nullopt when it cannot run.
std::optional<uint64_t> Need(int root, const CollEnv& env);

// The same for a regular call (MPI_Gather, MPI_Scatter), whose block must also
// fit an int byte count.
template <typename Call>
std::optional<uint64_t> NeedRegular(const Call& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (bytes < 0 || bytes > INT_MAX) return std::nullopt;
  return Need(c.root, env);
}

// Builds the tree and gathers (scatters) along it. Returns the MPI error code.
int Gather(const CollEnv& env, const Call& call);
int Scatter(const CollEnv& env, const Call& call);

}  // namespace colltune::shim::tuw

#endif  // COLLTUNE_SHIM_COLL_TUW_TRANSFER_H_
