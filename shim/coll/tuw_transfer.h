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

#include "shim/coll/datatype.h"
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

// Gathers along `plan`. `own` is this process's block (at the root, null buf
// for MPI_IN_PLACE). Returns the MPI error code.
int Gather(const Plan& plan, MPI_Comm comm, int rank, int size, int root,
           const Block& own, const RootBuffer& at_root, ScratchPool* scratch);

// Scatters along `plan`. `own` is where this process's block goes (at the
// root, null buf for MPI_IN_PLACE).
int Scatter(const Plan& plan, MPI_Comm comm, int rank, int size, int root,
            const Block& own, const RootBuffer& at_root, ScratchPool* scratch);

}  // namespace colltune::shim::tuw

#endif  // COLLTUNE_SHIM_COLL_TUW_TRANSFER_H_
