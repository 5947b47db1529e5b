// MPI_Gather(n) node by node: MPI_Gather within each node to its leader, then
// MPI_Gatherv of whole nodes among the leaders to the root's node, whose
// leader passes everything on if it is not the root.
//
// Each node's data crosses the network once, in one message. Blocks travel as
// packed bytes (MPI_BYTE) in node order (node_blocks.h); the root unpacks them
// into rank order, straight from the collectives into its receive buffer when
// its type is dense and the layout is placed by node blocks. Correct for
// every layout.
//
// Cost: MPI_Gather(n each) within nodes + MPI_Gatherv(node's n each) among
//   leaders (+ one message of p*n within the root's node when the root leads
//   none); scratch: p*n at the root's node's leader and the root (none at a
//   root that can receive directly), the node's blocks at other leaders, + n
//   to pack the own block where its type is not dense or in place.
#include "shim/coll/blocks.h"
#include "shim/coll/mockups.h"
#include "shim/coll/node_blocks.h"
#include "shim/coll/own_block.h"

namespace colltune::shim {
namespace {

constexpr int kTag = 2;

std::optional<uint64_t> Need(const GatherCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!RootedBlocksFit(c, env) || Nodes(env) == nullptr) {
    return std::nullopt;
  }
  return AlignUp(static_cast<uint64_t>(bytes) * env.size) +
         AlignUp(static_cast<uint64_t>(bytes)) + IntArraysBytes(env.size, 2);
}

int Run(const GatherCall& c, const CollEnv& env) {
  const NodeLayout& nodes = *env.nodes;
  const int64_t n = c.KeyBytes(env);
  const int p = env.size;
  const bool is_root = env.rank == c.root;
  const int root_node = nodes.NodeOf(c.root);
  const bool on_root_node = nodes.my_node() == root_node;
  const bool collects = nodes.leader() && on_root_node;  // receives all p blocks
  const Block own = OwnBlock(c, env.rank);
  Layout send, recv;
  int rc = GetLayout(own.type, &send);
  if (rc != MPI_SUCCESS) return rc;
  if (is_root && (rc = GetLayout(c.recvtype, &recv)) != MPI_SUCCESS) return rc;
  const bool in_place = is_root && c.sendbuf == MPI_IN_PLACE;
  const bool direct = is_root && recv.dense && nodes.blocked();
  // A direct in-place leader's own block already sits where its node's
  // gather puts it (a leader's rank is its node's first).
  const bool own_in_place = direct && in_place && nodes.leader();
  const bool send_direct = send.dense && !in_place;

  uint64_t all_bytes = 0;
  if ((collects || is_root) && !direct) all_bytes = static_cast<uint64_t>(n) * p;
  if (nodes.leader() && !collects) all_bytes = static_cast<uint64_t>(n) * nodes.node_size();
  ScratchPool::Lease lease = env.scratch->Acquire(
      AlignUp(all_bytes) + AlignUp(send_direct || own_in_place ? 0 : n) +
      (nodes.leader() ? IntArraysBytes(nodes.nodes(), 2) : 0));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  char* all = direct ? static_cast<char*>(c.recvbuf) : static_cast<char*>(carve.Take(all_bytes));
  const void* mine = own.buf;
  if (!send_direct && !own_in_place) {
    void* packed = carve.Take(n);
    if ((rc = PackBlock(own, packed)) != MPI_SUCCESS) return rc;
    mine = packed;
  }
  const int b = static_cast<int>(n);

  // Within the node: the leader receives its node's blocks, at their place
  // among all blocks on the root's node.
  char* node_part = collects ? all + nodes.Before(nodes.my_node()) * n : all;
  rc = GatherNode(nodes, own_in_place ? nullptr : mine, n, node_part);
  if (rc != MPI_SUCCESS) return rc;
  if (nodes.leader() && nodes.nodes() > 1) {
    int* counts = TakeInts(carve, nodes.nodes());
    int* displs = TakeInts(carve, nodes.nodes());
    NodeByteBlocks(nodes, n, counts, displs);
    rc = PMPI_Gatherv(collects ? MPI_IN_PLACE : node_part, counts[nodes.my_node()],
                      MPI_BYTE, all, counts, displs, MPI_BYTE, root_node,
                      nodes.leaders());
    if (rc != MPI_SUCCESS) return rc;
  }
  const int root_in_node = nodes.RankInNode(c.root);
  if (collects && !is_root) {
    return PMPI_Send(all, b * p, MPI_BYTE, root_in_node, kTag, nodes.node());
  }
  if (!is_root) return MPI_SUCCESS;
  if (!nodes.leader()) {
    rc = PMPI_Recv(all, b * p, MPI_BYTE, 0, kTag, nodes.node(), MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
  }
  if (direct) return MPI_SUCCESS;
  return UnpackNodeOrder(nodes, all, n, p, c.recvbuf, c.recvcount, c.recvtype, recv);
}

}  // namespace

const AlgorithmImpl<GatherCall> kGatherAsNodes = {Algorithm::kGatherAsNodes, Need, Run};

}  // namespace colltune::shim
