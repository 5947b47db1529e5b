// MPI_Bcast(n) by lanes (Träff's multi-lane decomposition): MPI_Scatterv
// cuts the data into one block per process of the root's node; block j
// travels to every node by MPI_Bcast among the processes of node rank j
// (lane j), all lanes at once; MPI_Allgatherv within each node puts the
// blocks back together.
//
// Every process of a node uses the network for 1/k of the data (k processes
// per node). Needs every node to hold the same number of processes. Blocks
// are cut in packed bytes, the measure all ranks share (MPI_Bcast lets each
// describe the data with its own type); a rank whose type is dense works in
// its own buffer, others stage through scratch.
//
// Cost: MPI_Scatterv(n/k each) within the root's node + MPI_Bcast(n/k) along
//   each lane + MPI_Allgatherv(n/k each) within nodes; scratch: n where the
//   type is not dense, 2k ints.
#include <climits>

#include "shim/coll/blocks.h"
#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const BcastCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!RootInRange(c.root, env) || bytes < 0 || bytes > INT_MAX) return std::nullopt;
  const NodeLayout* nodes = Nodes(env);
  if (nodes == nullptr || !nodes->regular()) return std::nullopt;
  return AlignUp(static_cast<uint64_t>(bytes)) + IntArraysBytes(env.size, 2);
}

int Run(const BcastCall& c, const CollEnv& env) {
  const NodeLayout& nodes = *env.nodes;
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  const int64_t bytes = c.KeyBytes(env);
  const bool is_root = env.rank == c.root;
  const int k = nodes.node_size();
  ScratchPool::Lease lease =
      env.scratch->Acquire(AlignUp(l.dense ? 0 : bytes) + IntArraysBytes(k, 2));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  char* work = static_cast<char*>(carve.Take(l.dense ? 0 : bytes));
  if (l.dense) work = static_cast<char*>(c.buffer);
  if (!l.dense && is_root) {
    rc = PackBytes(c.buffer, c.count, c.datatype, l, work);
    if (rc != MPI_SUCCESS) return rc;
  }
  int* counts = TakeInts(carve, k);
  int* displs = TakeInts(carve, k);
  BalancedBlocks(k, static_cast<int>(bytes), counts, displs);
  const int j = nodes.node_rank();
  const int root_node = nodes.NodeOf(c.root);
  if (k > 1 && nodes.my_node() == root_node) {
    rc = PMPI_Scatterv(work, counts, displs, MPI_BYTE,
                       is_root             ? MPI_IN_PLACE
                       : counts[j] == 0    ? EmptyBlockAddress()
                                           : work + displs[j],
                       counts[j], MPI_BYTE,
                       nodes.RankInNode(c.root), nodes.node());
    if (rc != MPI_SUCCESS) return rc;
  }
  if (nodes.nodes() > 1) {
    rc = PMPI_Bcast(work + displs[j], counts[j], MPI_BYTE, root_node, nodes.lane());
    if (rc != MPI_SUCCESS) return rc;
  }
  if (k > 1) {
    rc = PMPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, work, counts, displs, MPI_BYTE,
                         nodes.node());
    if (rc != MPI_SUCCESS) return rc;
  }
  if (!l.dense && !is_root) return UnpackBytes(work, c.buffer, c.count, c.datatype, l);
  return MPI_SUCCESS;
}

}  // namespace

// No `then`: where nodes differ in size, bcast_as_nodes was slower than the
// library's own bcast (3 + 1 nodes, 64 KiB and 1 MiB, every regime), so the
// library's runs.
const AlgorithmImpl<BcastCall> kBcastAsLanes = {Algorithm::kBcastAsLanes, Need, Run};

}  // namespace colltune::shim
