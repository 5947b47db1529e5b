// GL15: MPI_Reduce(n) as MPI_Reduce_scatter_block on p blocks of ceil(n/p)
// elements, then MPI_Gather of the blocks to the root.
//
// When p divides n, the input is reduced straight from the user's buffer
// (recvbuf at an in-place root) into one block of scratch and gathered into
// the root's recvbuf. Otherwise the input is copied into a zero-padded buffer
// of p blocks, and the root gathers into that buffer and copies the first n
// elements out; as in GL6, padding is eligible for predefined operations only.
// Operation and datatype are the same on all ranks, so the verdict is too.
// Not eligible under MPICH for datatypes with gaps (quirks.h).
//
// Cost: MPI_Reduce_scatter_block(p blocks of ceil(n/p)) + MPI_Gather of the
//   blocks; scratch: ceil(n/p), + p*ceil(n/p) (and n to pack a type that is
//   not dense) unless p divides the count.
#include <cstring>

#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"
#include "shim/coll/quirks.h"
#include "shim/coll/reduce_shape.h"

namespace colltune::shim {
namespace {


uint64_t ScratchBytes(const PaddedBlocks& plan) {
  return AlignUp(plan.block_bytes) + AlignUp(plan.padded_bytes) +
         AlignUp(plan.temp_bytes);
}

std::optional<uint64_t> Need(const ReduceCall& c, const CollEnv& env) {
  PaddedBlocks plan;
  if (!RootInRange(c.root, env) ||
      !PlanPaddedBlocks(c.count, c.datatype, env.size, &plan)) {
    return std::nullopt;
  }
  if (!GatherScatterSafe(plan.layout)) return std::nullopt;
  if (plan.padded && !IsPredefinedOp(c.op)) return std::nullopt;
  return ScratchBytes(plan);
}

int Run(const ReduceCall& c, const CollEnv& env) {
  PaddedBlocks plan;
  if (!PlanPaddedBlocks(c.count, c.datatype, env.size, &plan)) return MPI_ERR_TYPE;
  const Layout& l = plan.layout;
  const bool is_root = env.rank == c.root;
  const void* input =
      is_root && c.sendbuf == MPI_IN_PLACE ? c.recvbuf : c.sendbuf;
  const int block = static_cast<int>(plan.block);
  ScratchPool::Lease lease = env.scratch->Acquire(ScratchBytes(plan));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  void* mine = l.Base(carve.Take(plan.block_bytes));
  int rc;
  if (!plan.padded) {
    rc = PMPI_Reduce_scatter_block(input, mine, block, c.datatype, c.op,
                                   env.comm);
    if (rc != MPI_SUCCESS) return rc;
    return PMPI_Gather(mine, block, c.datatype, is_root ? c.recvbuf : nullptr,
                       block, c.datatype, c.root, env.comm);
  }
  void* padded_mem = carve.Take(plan.padded_bytes);
  void* padded = l.Base(padded_mem);
  void* temp = carve.Take(plan.temp_bytes);
  memset(padded_mem, 0, plan.padded_bytes);
  rc = CopyTyped(input, padded, c.count, c.datatype, l, temp);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Reduce_scatter_block(padded, mine, block, c.datatype, c.op,
                                 env.comm);
  if (rc != MPI_SUCCESS) return rc;
  // The padded input is no longer needed: the root gathers into it.
  rc = PMPI_Gather(mine, block, c.datatype, is_root ? padded : nullptr, block,
                   c.datatype, c.root, env.comm);
  if (rc != MPI_SUCCESS || !is_root) return rc;
  return CopyTyped(padded, c.recvbuf, c.count, c.datatype, l, temp);
}

}  // namespace

const AlgorithmImpl<ReduceCall> kReduceAsReducescatterblockGather = {
    Algorithm::kReduceAsReducescatterblockGather, Need, Run};

}  // namespace colltune::shim
