// MPI_Barrier node by node: MPI_Barrier within each node, then among the
// node leaders, then within each node again.
//
// A leader enters the leaders' barrier only once its whole node has entered,
// and no process leaves before its leader has left the leaders' barrier, which
// needs every node's leader: so no process leaves before all have entered.
//
// Cost: 2 MPI_Barrier within nodes + 1 among leaders; scratch: none.
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const BarrierCall&, const CollEnv& env) {
  if (Nodes(env) == nullptr) return std::nullopt;
  return 0;
}

int Run(const BarrierCall&, const CollEnv& env) {
  const NodeLayout& nodes = *env.nodes;
  const bool local = nodes.node_size() > 1;
  int rc = local ? PMPI_Barrier(nodes.node()) : MPI_SUCCESS;
  if (rc == MPI_SUCCESS && nodes.leader() && nodes.nodes() > 1) {
    rc = PMPI_Barrier(nodes.leaders());
  }
  if (rc == MPI_SUCCESS && local && nodes.nodes() > 1) rc = PMPI_Barrier(nodes.node());
  return rc;
}

}  // namespace

const AlgorithmImpl<BarrierCall> kBarrierAsNodes = {Algorithm::kBarrierAsNodes, Need,
                                                   Run};

}  // namespace colltune::shim
