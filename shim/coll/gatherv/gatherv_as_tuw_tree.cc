// MPI_Gatherv along seed 000's linear-time tree (tuw_tree.h): ceil(log2 p)
// rounds of constant-size messages build it from each process's own block
// size alone, then each process receives its children's blocks
// (non-blocking) and sends its subtree's once. The root receives in place,
// with an indexed datatype per child over its displacements.
//
// Cost: building, per round <= 1 MPI_Sendrecv(4 int64) + 1 notice (6 int64)
//   per rank (none at the root); then per rank <= ceil(log2 p) MPI_Irecv of
//   subtrees + one MPI_Send, a subtree over T = min(256 KiB, budget/2) bytes
//   straight to the root; scratch: a forwarded subtree, <= 2T bytes.
#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"
#include "shim/coll/tuw_transfer.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const GathervCall& c, const CollEnv& env) {
  return tuw::Need(c.root, env);
}

int Run(const GathervCall& c, const CollEnv& env) {
  const tuw::RootBuffer at_root{c.recvbuf, c.recvtype, c.recvcounts, c.displs, 0};
  return tuw::Gather(env, tuw::Call{c.root, OwnBytes(c, env.rank), false,
                                    OwnBlock(c, env.rank), at_root});
}

}  // namespace

const AlgorithmImpl<GathervCall> kGathervAsTuwTree = {Algorithm::kGathervAsTuwTree,
                                                      Need, Run};

}  // namespace colltune::shim
