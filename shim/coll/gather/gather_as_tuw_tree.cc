// MPI_Gather along seed 000's ordered-hypercube tree (tuw_tree.h). All blocks
// have the size the call's key gives every rank, so each process computes
// the tree locally, without the construction rounds: ceil(log2 p) rounds of
// data with blocks always in rank order, the root receiving in place.
//
// Cost: per rank <= ceil(log2 p) MPI_Irecv of subtrees + one MPI_Send of its
//   own; a subtree over T = min(256 KiB, budget/2) bytes sends straight to the
//   root (one more Irecv there); scratch: a forwarded subtree, <= 2T bytes.
#include <climits>

#include "shim/coll/mockups.h"
#include "shim/coll/tuw_transfer.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const GatherCall& c, const CollEnv& env) {
  return tuw::NeedRegular(c, env);
}

int Run(const GatherCall& c, const CollEnv& env) {
  const bool in_place = env.rank == c.root && c.sendbuf == MPI_IN_PLACE;
  const Block own = in_place ? Block{nullptr, 0, c.recvtype}
                             : Block{c.sendbuf, c.sendcount, c.sendtype};
  const tuw::RootBuffer at_root{c.recvbuf, c.recvtype, nullptr, nullptr, c.recvcount};
  return tuw::Gather(env, tuw::Call{c.root, c.KeyBytes(env), true, own, at_root});
}

}  // namespace

const AlgorithmImpl<GatherCall> kGatherAsTuwTree = {Algorithm::kGatherAsTuwTree, Need,
                                                    Run};

}  // namespace colltune::shim
