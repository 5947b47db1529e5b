// MPI_Scatter along seed 000's ordered-hypercube tree (tuw_tree.h), computed
// locally since every block has the size the call's key gives every rank;
// the root sends from its buffer in place.
//
// Cost: per rank one MPI_Recv of its subtree + <= ceil(log2 p) MPI_Isend to
//   children; a subtree over T = min(256 KiB, budget/2) bytes comes straight
//   from the root (one more Isend there); scratch: a forwarded subtree, <= 2T.
#include <climits>

#include "shim/coll/mockups.h"
#include "shim/coll/tuw_transfer.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ScatterCall& c, const CollEnv& env) {
  return tuw::NeedRegular(c, env);
}

int Run(const ScatterCall& c, const CollEnv& env) {
  const bool in_place = env.rank == c.root && c.recvbuf == MPI_IN_PLACE;
  const Block own = in_place ? Block{nullptr, 0, c.sendtype}
                             : Block{c.recvbuf, c.recvcount, c.recvtype};
  const tuw::RootBuffer at_root{const_cast<void*>(c.sendbuf), c.sendtype, nullptr,
                                nullptr, c.sendcount};
  return tuw::Scatter(env, tuw::Call{c.root, c.KeyBytes(env), true, own, at_root});
}

}  // namespace

const AlgorithmImpl<ScatterCall> kScatterAsTuwTree = {Algorithm::kScatterAsTuwTree,
                                                      Need, Run};

}  // namespace colltune::shim
