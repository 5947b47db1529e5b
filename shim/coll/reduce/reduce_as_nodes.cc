// MPI_Reduce(n) node by node (seed 001, section 9.4): MPI_Reduce to each
// node's leader, then MPI_Reduce among the leaders to the root's node, whose
// leader passes the result on if it is not the root.
//
// Only one process per node sends over the network, once. Eligible where the
// grouping may change (node_layout.h: MayReduceByNode). A leader that is not
// the root holds its node's partial result in scratch. On one node this is
// the library's MPI_Reduce on the node's communicator.
//
// Cost: MPI_Reduce(n) within nodes + MPI_Reduce(n) among leaders (+ one
//   message of n within the root's node when the root leads none); scratch:
//   n at leaders other than the root.
#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

constexpr int kTag = 1;

std::optional<uint64_t> Need(const ReduceCall& c, const CollEnv& env) {
  if (!RootInRange(c.root, env)) return std::nullopt;
  Layout l;
  if (c.count < 0 || GetLayout(c.datatype, &l) != MPI_SUCCESS) return std::nullopt;
  const NodeLayout* nodes = Nodes(env);
  if (nodes == nullptr || !MayReduceByNode(*nodes, c.op)) return std::nullopt;
  return AlignUp(l.Span(c.count));
}

int Run(const ReduceCall& c, const CollEnv& env) {
  const NodeLayout& nodes = *env.nodes;
  const bool is_root = env.rank == c.root;
  const int root_node = nodes.NodeOf(c.root);
  const int root_in_node = nodes.RankInNode(c.root);
  // The root's input: with MPI_IN_PLACE it is in recvbuf.
  const void* input = is_root && c.sendbuf == MPI_IN_PLACE ? c.recvbuf : c.sendbuf;
  if (nodes.nodes() == 1) {
    return PMPI_Reduce(is_root ? c.sendbuf : input, c.recvbuf, c.count, c.datatype,
                       c.op, root_in_node, nodes.node());
  }
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  if (!nodes.leader()) {
    rc = PMPI_Reduce(input, nullptr, c.count, c.datatype, c.op, 0, nodes.node());
    if (rc != MPI_SUCCESS || !is_root) return rc;
    return PMPI_Recv(c.recvbuf, c.count, c.datatype, 0, kTag, nodes.node(),
                     MPI_STATUS_IGNORE);
  }
  // A leader: its node's partial result goes to recvbuf at the root, else
  // to scratch (a single process's node needs none: its input is the
  // partial result).
  const bool alone = nodes.node_size() == 1;
  ScratchPool::Lease lease = env.scratch->Acquire(is_root || alone ? 0 : l.Span(c.count));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  void* partial = is_root ? c.recvbuf : l.Base(lease.data());
  if (!alone) {
    rc = PMPI_Reduce(is_root ? c.sendbuf : input, partial, c.count, c.datatype, c.op,
                     0, nodes.node());
    if (rc != MPI_SUCCESS) return rc;
  }
  const bool partial_in_place = !alone || (is_root && c.sendbuf == MPI_IN_PLACE);
  const void* send = partial_in_place ? partial : input;
  if (nodes.my_node() == root_node) {
    rc = PMPI_Reduce(partial_in_place ? MPI_IN_PLACE : send, partial, c.count,
                     c.datatype, c.op, root_node, nodes.leaders());
    if (rc != MPI_SUCCESS || is_root) return rc;
    return PMPI_Send(partial, c.count, c.datatype, root_in_node, kTag, nodes.node());
  }
  return PMPI_Reduce(send, nullptr, c.count, c.datatype, c.op, root_node,
                     nodes.leaders());
}

}  // namespace

const AlgorithmImpl<ReduceCall> kReduceAsNodes = {Algorithm::kReduceAsNodes, Need, Run};

}  // namespace colltune::shim
