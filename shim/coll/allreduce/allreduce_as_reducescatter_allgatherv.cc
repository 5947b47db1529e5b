// GL7: MPI_Allreduce(n) as MPI_Reduce_scatter on p balanced blocks (sizes
// differ by at most one element), then MPI_Allgatherv of the blocks.
//
// MPI_Reduce_scatter takes any block sizes, so nothing is padded and every
// operation is eligible, user-defined and non-commutative ones included
// (MPI_Reduce_scatter applies them in rank order). Out of place, each rank's
// block is reduced straight into its place in recvbuf and gathered in place:
// the only scratch is the 2p ints of counts and displacements (one block more
// with MPI_IN_PLACE, where the input occupies recvbuf). With fewer elements
// than processes some blocks are empty; an empty block's place in recvbuf is
// one past its end, which may be where the caller's sendbuf starts, so it
// receives at an address of the shim's own instead (MPICH refuses equal send
// and receive pointers even for an empty receive).
//
// Cost: MPI_Reduce_scatter(p balanced blocks, <= ceil(n/p)) + MPI_Allgatherv
//   of the blocks; scratch: 2p ints, + ceil(n/p) in place.
#include "shim/coll/mockups.h"
#include "shim/coll/blocks.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AllreduceCall& c, const CollEnv& env) {
  Layout l;
  if (c.count < 0 || GetLayout(c.datatype, &l) != MPI_SUCCESS) {
    return std::nullopt;
  }
  const int64_t largest = (static_cast<int64_t>(c.count) + env.size - 1) / env.size;
  return IntArraysBytes(env.size, 2) +
         (c.sendbuf == MPI_IN_PLACE ? AlignUp(l.Span(largest)) : 0);
}

int Run(const AllreduceCall& c, const CollEnv& env) {
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  const int64_t largest = (static_cast<int64_t>(c.count) + env.size - 1) / env.size;
  ScratchPool::Lease lease = env.scratch->Acquire(
      IntArraysBytes(env.size, 2) + (in_place ? AlignUp(l.Span(largest)) : 0));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  int* counts = TakeInts(carve, env.size);
  int* displs = TakeInts(carve, env.size);
  BalancedBlocks(env.size, c.count, counts, displs);
  const int mine = counts[env.rank];
  if (!in_place) {
    void* block = mine > 0 ? l.At(c.recvbuf, displs[env.rank]) : EmptyBlockAddress();
    rc = PMPI_Reduce_scatter(c.sendbuf, block, counts, c.datatype, c.op, env.comm);
    if (rc != MPI_SUCCESS) return rc;
    return PMPI_Allgatherv(MPI_IN_PLACE, mine, c.datatype, c.recvbuf, counts,
                           displs, c.datatype, env.comm);
  }
  void* block = l.Base(carve.Take(l.Span(mine)));
  rc = PMPI_Reduce_scatter(c.recvbuf, block, counts, c.datatype, c.op, env.comm);
  if (rc != MPI_SUCCESS) return rc;
  return PMPI_Allgatherv(block, mine, c.datatype, c.recvbuf, counts, displs,
                         c.datatype, env.comm);
}

}  // namespace

const AlgorithmImpl<AllreduceCall> kAllreduceAsReducescatterAllgatherv = {
    Algorithm::kAllreduceAsReducescatterAllgatherv, Need, Run};

}  // namespace colltune::shim
