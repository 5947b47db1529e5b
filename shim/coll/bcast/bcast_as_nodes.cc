// MPI_Bcast(n) node by node (seed 001, section 9.6): the root's node first
// where the root leads no node, then MPI_Bcast among the node leaders, then
// within each other node.
//
// Each node receives the data over the network once. Every step is an
// MPI_Bcast of the caller's own count and datatype, so ranks may describe
// the data differently as long as the type signatures match, as in
// MPI_Bcast. Correct for every layout.
//
// Cost: MPI_Bcast(n) among leaders + MPI_Bcast(n) within each node;
//   scratch: none.
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const BcastCall& c, const CollEnv& env) {
  if (!RootInRange(c.root, env) || Nodes(env) == nullptr) return std::nullopt;
  return 0;
}

int Run(const BcastCall& c, const CollEnv& env) {
  const NodeLayout& nodes = *env.nodes;
  const int root_node = nodes.NodeOf(c.root);
  const int root_in_node = nodes.RankInNode(c.root);
  const bool on_root_node = nodes.my_node() == root_node;
  int rc = MPI_SUCCESS;
  // A root that leads no node hands the data to its whole node, its leader
  // included; otherwise the leaders go first.
  const bool root_node_first = root_in_node != 0;
  if (on_root_node && root_node_first) {
    rc = PMPI_Bcast(c.buffer, c.count, c.datatype, root_in_node, nodes.node());
    if (rc != MPI_SUCCESS) return rc;
  }
  if (nodes.leader() && nodes.nodes() > 1) {
    rc = PMPI_Bcast(c.buffer, c.count, c.datatype, root_node, nodes.leaders());
    if (rc != MPI_SUCCESS) return rc;
  }
  if ((on_root_node && root_node_first) || nodes.node_size() == 1) {
    return MPI_SUCCESS;
  }
  return PMPI_Bcast(c.buffer, c.count, c.datatype, 0, nodes.node());
}

}  // namespace

const AlgorithmImpl<BcastCall> kBcastAsNodes = {Algorithm::kBcastAsNodes, Need, Run};

}  // namespace colltune::shim
