// GL22: MPI_Scatter(n) as MPI_Scatterv with p equal counts.
//
// The mirror of gather_as_gatherv: the root builds 2p ints, the other ranks
// pass their arguments through, MPI_IN_PLACE at the root keeps its meaning.
//
// Cost: MPI_Scatterv(n each, equal counts); scratch: 2p ints at the root.
#include "shim/coll/blocks.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ScatterCall& c, const CollEnv& env) {
  if (!RootedBlocksFit(c, env)) return std::nullopt;
  return IntArraysBytes(env.size, 2);
}

int Run(const ScatterCall& c, const CollEnv& env) {
  if (env.rank != c.root) {
    return PMPI_Scatterv(nullptr, nullptr, nullptr, c.sendtype, c.recvbuf,
                         c.recvcount, c.recvtype, c.root, env.comm);
  }
  ScratchPool::Lease lease = env.scratch->Acquire(IntArraysBytes(env.size, 2));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  int* counts = TakeInts(carve, env.size);
  int* displs = TakeInts(carve, env.size);
  EqualBlocks(env.size, c.sendcount, counts, displs);
  return PMPI_Scatterv(c.sendbuf, counts, displs, c.sendtype, c.recvbuf,
                       c.recvcount, c.recvtype, c.root, env.comm);
}

}  // namespace

const AlgorithmImpl<ScatterCall> kScatterAsScatterv = {
    Algorithm::kScatterAsScatterv, Need, Run};

}  // namespace colltune::shim
