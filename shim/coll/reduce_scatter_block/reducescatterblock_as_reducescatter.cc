// GL18: MPI_Reduce_scatter_block(n) as MPI_Reduce_scatter with p equal
// counts (p ints). MPI_IN_PLACE keeps its meaning.
#include "shim/coll/blocks.h"
#include "shim/coll/reduce_scatter_block/algorithms.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ReduceScatterBlockCall& c,
                             const CollEnv& env) {
  if (VectorCount(c, env.size) < 0) return std::nullopt;
  return IntArraysBytes(env.size, 1);
}

int Run(const ReduceScatterBlockCall& c, const CollEnv& env) {
  ScratchPool::Lease lease = env.scratch->Acquire(IntArraysBytes(env.size, 1));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  int* counts = TakeInts(carve, env.size);
  for (int i = 0; i < env.size; ++i) counts[i] = c.recvcount;
  return PMPI_Reduce_scatter(c.sendbuf, c.recvbuf, counts, c.datatype, c.op,
                             env.comm);
}

}  // namespace

const AlgorithmImpl<ReduceScatterBlockCall> kReducescatterblockAsReducescatter = {
    Algorithm::kReducescatterblockAsReducescatter, Need, Run};

}  // namespace colltune::shim
