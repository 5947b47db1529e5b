// GL12: MPI_Gather(n) as MPI_Gatherv with p equal counts.
//
// Only the root builds the count and displacement arrays (2p ints); the other
// ranks pass their arguments through unchanged, and MPI_IN_PLACE at the root
// keeps its meaning in MPI_Gatherv.
//
// Cost: MPI_Gatherv(n each, equal counts); scratch: 2p ints at the root.
#include "shim/coll/blocks.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const GatherCall& c, const CollEnv& env) {
  if (!RootedBlocksFit(c, env)) return std::nullopt;
  return IntArraysBytes(env.size, 2);
}

int Run(const GatherCall& c, const CollEnv& env) {
  if (env.rank != c.root) {
    return PMPI_Gatherv(c.sendbuf, c.sendcount, c.sendtype, nullptr, nullptr,
                        nullptr, c.recvtype, c.root, env.comm);
  }
  ScratchPool::Lease lease = env.scratch->Acquire(IntArraysBytes(env.size, 2));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  int* counts = TakeInts(carve, env.size);
  int* displs = TakeInts(carve, env.size);
  EqualBlocks(env.size, c.recvcount, counts, displs);
  return PMPI_Gatherv(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, counts, displs,
                      c.recvtype, c.root, env.comm);
}

}  // namespace

const AlgorithmImpl<GatherCall> kGatherAsGatherv = {Algorithm::kGatherAsGatherv,
                                                    Need, Run};

}  // namespace colltune::shim
