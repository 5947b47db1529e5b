// GL16: MPI_Reduce(n) as MPI_Reduce_scatter on p balanced blocks, then
// MPI_Gatherv of the blocks to the root.
//
// No padding, so every operation is eligible (MPI_Reduce_scatter keeps rank
// order for non-commutative ones). Scratch: 2p ints and one block (at most
// ceil(n/p) elements). An in-place root reduces from its recvbuf, which the
// gather then overwrites.
//
// Cost: MPI_Reduce_scatter(p balanced blocks, <= ceil(n/p)) + MPI_Gatherv of
//   the blocks to the root; scratch: 2p ints + one block (ceil(n/p)).
#include "shim/coll/blocks.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ReduceCall& c, const CollEnv& env) {
  Layout l;
  if (!RootInRange(c.root, env) || c.count < 0 ||
      GetLayout(c.datatype, &l) != MPI_SUCCESS) {
    return std::nullopt;
  }
  const int64_t largest = (static_cast<int64_t>(c.count) + env.size - 1) / env.size;
  return IntArraysBytes(env.size, 2) + AlignUp(l.Span(largest));
}

int Run(const ReduceCall& c, const CollEnv& env) {
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  const int64_t largest = (static_cast<int64_t>(c.count) + env.size - 1) / env.size;
  ScratchPool::Lease lease = env.scratch->Acquire(IntArraysBytes(env.size, 2) +
                                                  AlignUp(l.Span(largest)));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  int* counts = TakeInts(carve, env.size);
  int* displs = TakeInts(carve, env.size);
  BalancedBlocks(env.size, c.count, counts, displs);
  void* mine = l.Base(carve.Take(l.Span(counts[env.rank])));
  const bool is_root = env.rank == c.root;
  const void* input =
      is_root && c.sendbuf == MPI_IN_PLACE ? c.recvbuf : c.sendbuf;
  rc = PMPI_Reduce_scatter(input, mine, counts, c.datatype, c.op, env.comm);
  if (rc != MPI_SUCCESS) return rc;
  return PMPI_Gatherv(mine, counts[env.rank], c.datatype,
                      is_root ? c.recvbuf : nullptr, counts, displs, c.datatype,
                      c.root, env.comm);
}

}  // namespace

const AlgorithmImpl<ReduceCall> kReduceAsReducescatterGatherv = {
    Algorithm::kReduceAsReducescatterGatherv, Need, Run};

}  // namespace colltune::shim
