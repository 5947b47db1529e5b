// MPI_Gatherv along seed 000's linear-time tree (tuw_tree.h): ceil(log2 p)
// rounds of constant-size messages build it from each process's own block
// size alone, then each process receives its children's blocks
// (non-blocking) and sends its subtree's once. The root receives in place,
// with an indexed datatype per child over its displacements.
#include <vector>

#include "shim/coll/gatherv/algorithms.h"
#include "shim/coll/tuw_transfer.h"
#include "shim/coll/tuw_tree.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const GathervCall& c, const CollEnv& env) {
  if (!RootInRange(c.root, env) || env.p2p == nullptr) return std::nullopt;
  return tuw::ScratchFor(tuw::ThresholdFor(env.mem_budget));
}

int Run(const GathervCall& c, const CollEnv& env) {
  MPI_Comm comm;
  int rc = P2PComm(env, &comm);
  if (rc != MPI_SUCCESS) return rc;
  const int64_t bytes = OwnBytes(c, env.rank);
  if (bytes < 0) return MPI_ERR_TYPE;
  // Thread-local: reused call after call, nothing allocated once warm.
  thread_local std::vector<int64_t> all;  // the root knows every block size
  if (env.rank == c.root) {
    const int64_t type_size = TypeSize(c.recvtype);
    if (type_size < 0) return MPI_ERR_TYPE;
    all.resize(env.size);
    for (int i = 0; i < env.size; ++i) all[i] = c.recvcounts[i] * type_size;
  }
  thread_local tuw::Plan plan;
  rc = tuw::Build(comm, env.rank, env.size, c.root, bytes, all.data(),
                  tuw::ThresholdFor(env.mem_budget), &plan);
  if (rc != MPI_SUCCESS) return rc;
  const tuw::RootBuffer at_root{c.recvbuf, c.recvtype, c.recvcounts, c.displs, 0};
  return tuw::Gather(plan, comm, env.rank, env.size, c.root, OwnBlock(c, env.rank),
                     at_root, env.scratch);
}

}  // namespace

const AlgorithmImpl<GathervCall> kGathervAsTuwTree = {Algorithm::kGathervAsTuwTree,
                                                      Need, Run};

}  // namespace colltune::shim
