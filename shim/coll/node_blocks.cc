#include "shim/coll/node_blocks.h"

namespace colltune::shim {

void NodeByteBlocks(const NodeLayout& nodes, int64_t n, int* counts, int* displs) {
  for (int i = 0; i < nodes.nodes(); ++i) {
    counts[i] = static_cast<int>(nodes.SizeOf(i) * n);
    displs[i] = static_cast<int>(nodes.Before(i) * n);
  }
}

int GatherNode(const NodeLayout& nodes, const void* mine, int64_t n, char* node_part) {
  if (mine == nullptr && nodes.node_size() == 1) return MPI_SUCCESS;
  const int b = static_cast<int>(n);
  return PMPI_Gather(mine == nullptr ? MPI_IN_PLACE : mine, b, MPI_BYTE, node_part, b,
                     MPI_BYTE, 0, nodes.node());
}

int UnpackNodeOrder(const NodeLayout& nodes, const char* bytes, int64_t n, int p,
                    void* buf, int count, MPI_Datatype type, const Layout& layout) {
  if (nodes.blocked()) {
    return UnpackBytes(bytes, buf, static_cast<int64_t>(count) * p, type, layout);
  }
  for (int r = 0; r < p; ++r) {
    const int64_t at = nodes.Before(nodes.NodeOf(r)) + nodes.RankInNode(r);
    const int rc = UnpackBytes(bytes + at * n, layout.At(buf, static_cast<int64_t>(r) * count),
                               count, type, layout);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace colltune::shim
