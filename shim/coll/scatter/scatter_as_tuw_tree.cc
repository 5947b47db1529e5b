// MPI_Scatter along seed 000's ordered-hypercube tree (tuw_tree.h), computed
// locally since every block has the size the call's key gives every rank;
// the root sends from its buffer in place.
#include <climits>

#include "shim/coll/scatter/algorithms.h"
#include "shim/coll/tuw_transfer.h"
#include "shim/coll/tuw_tree.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ScatterCall& c, const CollEnv& env) {
  if (!RootInRange(c.root, env) || env.p2p == nullptr) return std::nullopt;
  const int64_t bytes = c.KeyBytes(env.rank);
  if (bytes < 0 || bytes > INT_MAX) return std::nullopt;
  return tuw::ScratchFor(tuw::ThresholdFor(env.mem_budget));
}

int Run(const ScatterCall& c, const CollEnv& env) {
  MPI_Comm comm;
  const int rc = P2PComm(env, &comm);
  if (rc != MPI_SUCCESS) return rc;
  thread_local tuw::Plan plan;  // reused: nothing allocated once warm
  tuw::BuildLocal(env.rank, env.size, c.root, c.KeyBytes(env.rank),
                  tuw::ThresholdFor(env.mem_budget), &plan);
  const bool in_place = env.rank == c.root && c.recvbuf == MPI_IN_PLACE;
  const Block own = in_place ? Block{nullptr, 0, c.sendtype}
                             : Block{c.recvbuf, c.recvcount, c.recvtype};
  const tuw::RootBuffer at_root{const_cast<void*>(c.sendbuf), c.sendtype, nullptr,
                                nullptr, c.sendcount};
  return tuw::Scatter(plan, comm, env.rank, env.size, c.root, own, at_root, env.scratch);
}

}  // namespace

const AlgorithmImpl<ScatterCall> kScatterAsTuwTree = {Algorithm::kScatterAsTuwTree,
                                                      Need, Run};

}  // namespace colltune::shim
