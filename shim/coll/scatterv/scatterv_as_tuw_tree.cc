// MPI_Scatterv along seed 000's linear-time tree (tuw_tree.h), the gather
// tree run backwards: built from each process's own block size alone, then
// the root sends each child its subtree's blocks in place (an indexed
// datatype over its displacements), and every process forwards its
// children's parts of what it received.
//
// Cost: building, per round <= 1 MPI_Sendrecv(4 int64) + 1 notice (6 int64)
//   per rank (none at the root); then per rank one MPI_Recv + <= ceil(log2 p)
//   MPI_Isend to children, a subtree over T = min(256 KiB, budget/2) bytes
//   straight from the root; scratch: a forwarded subtree, <= 2T bytes.
#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"
#include "shim/coll/tuw_transfer.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ScattervCall& c, const CollEnv& env) {
  return tuw::Need(c.root, env);
}

int Run(const ScattervCall& c, const CollEnv& env) {
  const tuw::RootBuffer at_root{const_cast<void*>(c.sendbuf), c.sendtype, c.sendcounts,
                                c.displs, 0};
  return tuw::Scatter(env, tuw::Call{c.root, OwnBytes(c, env.rank), false,
                                     OwnBlock(c, env.rank), at_root});
}

}  // namespace

const AlgorithmImpl<ScattervCall> kScattervAsTuwTree = {Algorithm::kScattervAsTuwTree,
                                                        Need, Run};

}  // namespace colltune::shim
