// GL6: MPI_Allreduce(n) as MPI_Reduce_scatter_block on p blocks of
// ceil(n/p) elements, then MPI_Allgather of the blocks.
//
// When p divides n the user's buffers are used directly: the reduce-scatter
// writes this rank's block into its place in recvbuf and the allgather runs
// in place, so no scratch is needed (one block with MPI_IN_PLACE). Otherwise
// the input is copied into a zero-padded buffer of p blocks; padding is only
// legitimate for predefined operations (a user function must never see
// elements the program did not produce), so for user-defined operations the
// padded variant is not eligible. Operation and datatype are the same on all
// ranks (MPI requires it for reductions), so eligibility is rank-invariant.
// Non-commutative operations are fine: MPI_Reduce_scatter_block applies them
// in rank order. Every rank ends with the allgathered, identical bytes.
//
// Cost: MPI_Reduce_scatter_block(p blocks of ceil(n/p)) + MPI_Allgather of the
//   blocks; scratch: none (ceil(n/p) in place) if p divides the count, else
//   p*ceil(n/p) + ceil(n/p) (+ n to pack a type that is not dense).
#include <cstring>

#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"
#include "shim/coll/reduce_shape.h"

namespace colltune::shim {
namespace {


std::optional<uint64_t> Need(const AllreduceCall& c, const CollEnv& env) {
  PaddedBlocks plan;
  if (!PlanPaddedBlocks(c.count, c.datatype, env.size, &plan)) return std::nullopt;
  if (!plan.padded) {
    return c.sendbuf == MPI_IN_PLACE ? AlignUp(plan.block_bytes) : 0;
  }
  if (!IsPredefinedOp(c.op)) return std::nullopt;
  return AlignUp(plan.padded_bytes) + AlignUp(plan.block_bytes) +
         AlignUp(plan.temp_bytes);
}

int RunDivisible(const AllreduceCall& c, const CollEnv& env,
                 const PaddedBlocks& plan) {
  const Layout& l = plan.layout;
  const int block = static_cast<int>(plan.block);
  if (c.sendbuf != MPI_IN_PLACE) {
    int rc = PMPI_Reduce_scatter_block(c.sendbuf,
                                       l.At(c.recvbuf, env.rank * plan.block),
                                       block, c.datatype, c.op, env.comm);
    if (rc != MPI_SUCCESS) return rc;
    return PMPI_Allgather(MPI_IN_PLACE, block, c.datatype, c.recvbuf, block,
                          c.datatype, env.comm);
  }
  // In place the input occupies all of recvbuf, so this rank's reduced
  // block needs a place of its own before it is gathered back.
  ScratchPool::Lease lease = env.scratch->Acquire(plan.block_bytes);
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  void* mine = l.Base(lease.data());
  int rc = PMPI_Reduce_scatter_block(c.recvbuf, mine, block, c.datatype, c.op,
                                     env.comm);
  if (rc != MPI_SUCCESS) return rc;
  return PMPI_Allgather(mine, block, c.datatype, c.recvbuf, block, c.datatype,
                        env.comm);
}

int RunPadded(const AllreduceCall& c, const CollEnv& env, const PaddedBlocks& plan) {
  const Layout& l = plan.layout;
  const int block = static_cast<int>(plan.block);
  ScratchPool::Lease lease = env.scratch->Acquire(
      AlignUp(plan.padded_bytes) + AlignUp(plan.block_bytes) +
      AlignUp(plan.temp_bytes));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  void* padded_mem = carve.Take(plan.padded_bytes);
  void* padded = l.Base(padded_mem);
  void* mine = l.Base(carve.Take(plan.block_bytes));
  void* temp = carve.Take(plan.temp_bytes);

  // Zero padding is neutral enough: its results are computed and dropped.
  memset(padded_mem, 0, plan.padded_bytes);
  const void* input = c.sendbuf == MPI_IN_PLACE ? c.recvbuf : c.sendbuf;
  int rc = CopyTyped(input, padded, c.count, c.datatype, l, temp);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Reduce_scatter_block(padded, mine, block, c.datatype, c.op,
                                 env.comm);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Allgather(mine, block, c.datatype, padded, block, c.datatype,
                      env.comm);
  if (rc != MPI_SUCCESS) return rc;
  return CopyTyped(padded, c.recvbuf, c.count, c.datatype, l, temp);
}

int Run(const AllreduceCall& c, const CollEnv& env) {
  PaddedBlocks plan;
  if (!PlanPaddedBlocks(c.count, c.datatype, env.size, &plan)) return MPI_ERR_TYPE;
  return plan.padded ? RunPadded(c, env, plan) : RunDivisible(c, env, plan);
}

}  // namespace

const AlgorithmImpl<AllreduceCall> kAllreduceAsReducescatterblockAllgather = {
    Algorithm::kAllreduceAsReducescatterblockAllgather, Need, Run};

}  // namespace colltune::shim
