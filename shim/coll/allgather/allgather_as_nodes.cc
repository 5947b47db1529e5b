// MPI_Allgather(n) node by node (seed 001, section 9.6): MPI_Gather within
// each node to its leader, MPI_Allgatherv of whole nodes among the leaders,
// then MPI_Bcast of all blocks within each node.
//
// Each node's data crosses the network once per other node, in one message,
// and only leaders use the network. Blocks travel as packed bytes (MPI_BYTE)
// in node order (node_blocks.h); a rank unpacks them into rank order, or
// receives them in place when its receive type is dense and the layout is
// placed by node blocks. Correct for every layout.
//
// Cost: MPI_Gather(n each) within nodes + MPI_Allgatherv(node's n each) among
//   leaders + MPI_Bcast(p*n) within nodes; scratch: p*n (none where the
//   blocks arrive in place), + n to pack the own block where its type is not
//   dense or in place.
#include "shim/coll/blocks.h"
#include "shim/coll/mockups.h"
#include "shim/coll/node_blocks.h"
#include "shim/coll/own_block.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AllgatherCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!FitsIntBlocks(bytes, env.size) || Nodes(env) == nullptr) return std::nullopt;
  return AlignUp(static_cast<uint64_t>(bytes) * env.size) +
         AlignUp(static_cast<uint64_t>(bytes)) + IntArraysBytes(env.size, 2);
}

int Run(const AllgatherCall& c, const CollEnv& env) {
  const NodeLayout& nodes = *env.nodes;
  const int64_t n = c.KeyBytes(env);
  const int p = env.size;
  const Block own = OwnBlock(c, env.rank);
  Layout send, recv;
  int rc = GetLayout(own.type, &send);
  if (rc == MPI_SUCCESS) rc = GetLayout(c.recvtype, &recv);
  if (rc != MPI_SUCCESS) return rc;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  const bool direct = recv.dense && nodes.blocked();
  // In place and direct, the own block already sits where it belongs.
  const bool own_in_place = direct && in_place;
  const bool send_direct = send.dense && !in_place;
  ScratchPool::Lease lease = env.scratch->Acquire(
      AlignUp(direct ? 0 : static_cast<uint64_t>(n) * p) +
      AlignUp(send_direct || own_in_place ? 0 : n) +
      (nodes.leader() ? IntArraysBytes(nodes.nodes(), 2) : 0));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  char* all = direct ? static_cast<char*>(c.recvbuf)
                     : static_cast<char*>(carve.Take(static_cast<uint64_t>(n) * p));
  const void* mine = own_in_place ? all + env.rank * n : own.buf;
  if (!send_direct && !own_in_place) {
    void* packed = carve.Take(n);
    if ((rc = PackBlock(own, packed)) != MPI_SUCCESS) return rc;
    mine = packed;
  }
  const int b = static_cast<int>(n);
  char* node_part = all + nodes.Before(nodes.my_node()) * n;
  // A direct in-place leader's block is its node's first (a leader's rank
  // is its node's first), where the gather would put it.
  const bool leader_in_place = own_in_place && nodes.leader();
  rc = GatherNode(nodes, leader_in_place ? nullptr : mine, n, node_part);
  if (rc != MPI_SUCCESS) return rc;
  if (nodes.leader() && nodes.nodes() > 1) {
    int* counts = TakeInts(carve, nodes.nodes());
    int* displs = TakeInts(carve, nodes.nodes());
    NodeByteBlocks(nodes, n, counts, displs);
    rc = PMPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, all, counts, displs,
                         MPI_BYTE, nodes.leaders());
    if (rc != MPI_SUCCESS) return rc;
  }
  if (nodes.node_size() > 1) {
    rc = PMPI_Bcast(all, b * p, MPI_BYTE, 0, nodes.node());
    if (rc != MPI_SUCCESS) return rc;
  }
  if (direct) return MPI_SUCCESS;
  return UnpackNodeOrder(nodes, all, n, p, c.recvbuf, c.recvcount, c.recvtype, recv);
}

}  // namespace

const AlgorithmImpl<AllgatherCall> kAllgatherAsNodes = {Algorithm::kAllgatherAsNodes,
                                                       Need, Run};

}  // namespace colltune::shim
