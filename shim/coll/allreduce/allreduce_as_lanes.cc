// MPI_Allreduce(n) by lanes (Träff's multi-lane decomposition): within each
// node MPI_Reduce_scatter cuts the vector into one block per process; block
// j is then reduced across nodes by MPI_Allreduce among the processes of
// node rank j (lane j), all lanes at once; MPI_Allgatherv within each node
// puts the blocks back together.
//
// Every process of a node uses the network for 1/k of the data (k processes
// per node), instead of one leader for all of it. Needs every node to hold
// the same number of processes (the lanes are then the same size) and a
// grouping that may change (node_layout.h: MayReduceByNode). Each block's
// result is one MPI_Allreduce's, copied to everyone, so all ranks end with
// identical results.
//
// Cost: MPI_Reduce_scatter(n) within nodes + MPI_Allreduce(n/k) along each
//   lane + MPI_Allgatherv(n/k each) within nodes; scratch: a copy of the
//   input in place (+ n to pack a non-dense type), 2k ints.
#include "shim/coll/blocks.h"
#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AllreduceCall& c, const CollEnv& env) {
  Layout l;
  if (c.count < 0 || GetLayout(c.datatype, &l) != MPI_SUCCESS) return std::nullopt;
  const NodeLayout* nodes = Nodes(env);
  if (nodes == nullptr || !nodes->regular() || !MayReduceByNode(*nodes, c.op)) {
    return std::nullopt;
  }
  return AlignUp(l.Span(c.count)) + AlignUp(CopyTypedTemp(c.count, l)) +
         IntArraysBytes(env.size, 2);
}

int Run(const AllreduceCall& c, const CollEnv& env) {
  const NodeLayout& nodes = *env.nodes;
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  const int k = nodes.node_size();
  const uint64_t span = in_place ? l.Span(c.count) : 0;
  const uint64_t temp_bytes = in_place ? CopyTypedTemp(c.count, l) : 0;
  ScratchPool::Lease lease = env.scratch->Acquire(AlignUp(span) + AlignUp(temp_bytes) +
                                                  IntArraysBytes(k, 2));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  const void* input = c.sendbuf;
  if (in_place) {
    // MPI_Reduce_scatter in place would leave this process's block at the
    // start of recvbuf; the input moves out of the way instead.
    void* copy = l.Base(carve.Take(span));
    void* temp = carve.Take(temp_bytes);
    if ((rc = CopyTyped(c.recvbuf, copy, c.count, c.datatype, l, temp)) != MPI_SUCCESS) {
      return rc;
    }
    input = copy;
  } else {
    carve.Take(0);
    carve.Take(0);
  }
  int* counts = TakeInts(carve, k);
  int* displs = TakeInts(carve, k);
  BalancedBlocks(k, c.count, counts, displs);
  const int j = nodes.node_rank();
  // An empty block's address may be where the next user buffer starts.
  void* mine = counts[j] == 0 ? EmptyBlockAddress() : l.At(c.recvbuf, displs[j]);
  rc = PMPI_Reduce_scatter(input, mine, counts, c.datatype, c.op, nodes.node());
  if (rc != MPI_SUCCESS) return rc;
  if (nodes.nodes() > 1) {
    rc = PMPI_Allreduce(MPI_IN_PLACE, mine, counts[j], c.datatype, c.op, nodes.lane());
    if (rc != MPI_SUCCESS) return rc;
  }
  if (k == 1) return MPI_SUCCESS;
  return PMPI_Allgatherv(MPI_IN_PLACE, 0, c.datatype, c.recvbuf, counts, displs,
                         c.datatype, nodes.node());
}

}  // namespace

// Where nodes differ in size, allreduce_as_nodes runs instead: faster than
// the library's own allreduce there (3 + 1 nodes, 8 B to 1 MiB, every regime).
const AlgorithmImpl<AllreduceCall> kAllreduceAsLanes = {Algorithm::kAllreduceAsLanes, Need,
                                                        Run, Algorithm::kAllreduceAsNodes};

}  // namespace colltune::shim
