// Packed blocks of n bytes per rank, as the hierarchical gathering mock-ups
// move them: node after node, each node's ranks in order (node order). On a
// layout placed by node blocks node order is rank order.
#ifndef COLLTUNE_SHIM_COLL_NODE_BLOCKS_H_
#define COLLTUNE_SHIM_COLL_NODE_BLOCKS_H_

#include <cstdint>

#include "shim/coll/datatype.h"
#include "shim/coll/node_layout.h"

namespace colltune::shim {

// Per node: its ranks' bytes and where they start in node order.
// Needs FitsIntBlocks(n, size).
void NodeByteBlocks(const NodeLayout& nodes, int64_t n, int* counts, int* displs);

// The node's blocks of n bytes to its leader, in node order at `node_part`
// (significant at the leader only). `mine` is this process's block, or null
// at a leader whose block already sits first at `node_part`.
int GatherNode(const NodeLayout& nodes, const void* mine, int64_t n, char* node_part);

// Unpacks p blocks of n bytes in node order from `bytes` into rank order:
// rank i's block to `count` elements of `type` at element i * count of `buf`.
int UnpackNodeOrder(const NodeLayout& nodes, const char* bytes, int64_t n, int p,
                    void* buf, int count, MPI_Datatype type, const Layout& layout);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_NODE_BLOCKS_H_
