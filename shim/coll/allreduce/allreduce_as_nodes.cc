// MPI_Allreduce(n) node by node (seed 001, section 9.4): MPI_Reduce to each
// node's leader, MPI_Allreduce among the leaders, MPI_Bcast within each node.
//
// Only one process per node sends over the network, once. Eligible where the
// grouping may change (node_layout.h: MayReduceByNode); the leaders' results
// are the library's MPI_Allreduce and everyone else receives a leader's
// bytes, so all ranks end with identical results. A node of one process skips
// its node steps, a communicator on one node the leaders' step.
//
// Cost: MPI_Reduce(n) within nodes + MPI_Allreduce(n) among leaders +
//   MPI_Bcast(n) within nodes; scratch: none.
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AllreduceCall& c, const CollEnv& env) {
  const NodeLayout* nodes = Nodes(env);
  if (nodes == nullptr || !MayReduceByNode(*nodes, c.op)) return std::nullopt;
  return 0;
}

int Run(const AllreduceCall& c, const CollEnv& env) {
  const NodeLayout& nodes = *env.nodes;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  int rc = MPI_SUCCESS;
  if (nodes.node_size() > 1) {
    if (nodes.leader()) {
      rc = PMPI_Reduce(c.sendbuf, c.recvbuf, c.count, c.datatype, c.op, 0,
                       nodes.node());
    } else {
      // A non-leader's receive buffer is not significant in MPI_Reduce; with
      // MPI_IN_PLACE its input is in recvbuf.
      rc = PMPI_Reduce(in_place ? c.recvbuf : c.sendbuf, nullptr, c.count,
                       c.datatype, c.op, 0, nodes.node());
    }
    if (rc != MPI_SUCCESS) return rc;
  }
  if (nodes.leader() && nodes.nodes() > 1) {
    // The node's partial result is in recvbuf, unless the node is this
    // process alone and its input is still in sendbuf.
    const bool partial_in_recvbuf = in_place || nodes.node_size() > 1;
    rc = PMPI_Allreduce(partial_in_recvbuf ? MPI_IN_PLACE : c.sendbuf, c.recvbuf,
                        c.count, c.datatype, c.op, nodes.leaders());
    if (rc != MPI_SUCCESS) return rc;
  } else if (nodes.leader() && nodes.node_size() == 1 && !in_place) {
    // One process on one node: the result is its input.
    rc = PMPI_Allreduce(c.sendbuf, c.recvbuf, c.count, c.datatype, c.op,
                        nodes.node());
    if (rc != MPI_SUCCESS) return rc;
  }
  if (nodes.node_size() == 1) return MPI_SUCCESS;
  return PMPI_Bcast(c.recvbuf, c.count, c.datatype, 0, nodes.node());
}

}  // namespace

const AlgorithmImpl<AllreduceCall> kAllreduceAsNodes = {Algorithm::kAllreduceAsNodes,
                                                       Need, Run};

}  // namespace colltune::shim
