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
#include "shim/coll/quirks.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

struct Plan {
  Layout layout;
  int64_t block = 0;
  bool padded = false;
  uint64_t block_bytes = 0, padded_bytes = 0, temp_bytes = 0;
};

bool MakePlan(const ReduceCall& c, const CollEnv& env, Plan* plan) {
  if (c.count < 0 || GetLayout(c.datatype, &plan->layout) != MPI_SUCCESS) {
    return false;
  }
  const int64_t n = c.count, p = env.size;
  plan->block = (n + p - 1) / p;
  plan->padded = n % p != 0;
  plan->block_bytes = plan->layout.Span(plan->block);
  if (plan->padded) {
    plan->padded_bytes = plan->layout.Span(plan->block * p);
    plan->temp_bytes = CopyTypedTemp(n, plan->layout);
  }
  return true;
}

uint64_t ScratchBytes(const Plan& plan) {
  return AlignUp(plan.block_bytes) + AlignUp(plan.padded_bytes) +
         AlignUp(plan.temp_bytes);
}

std::optional<uint64_t> Need(const ReduceCall& c, const CollEnv& env) {
  Plan plan;
  if (!RootInRange(c.root, env) || !MakePlan(c, env, &plan)) return std::nullopt;
  if (!GatherScatterSafe(plan.layout)) return std::nullopt;
  if (plan.padded && !IsPredefinedOp(c.op)) return std::nullopt;
  return ScratchBytes(plan);
}

int Run(const ReduceCall& c, const CollEnv& env) {
  Plan plan;
  if (!MakePlan(c, env, &plan)) return MPI_ERR_TYPE;
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
