// Seed 003's GL4 for MPI_Gatherv: the call with each datatype replaced by
// its normal form (shim/coll/normal_form.h), the same type map described
// flat. The type map, and so the counts and the signature, stay the user's:
// each rank may take this path on its own (a table's layout rule), and a
// predefined or already flat type is passed as it is.
//
// Cost: MPI_Gatherv with the normal form; the form is built once per type.
#include "shim/coll/mockups.h"
#include "shim/coll/normal_form.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const GathervCall& c, const CollEnv& env) {
  return RootInRange(c.root, env) ? std::optional<uint64_t>(0) : std::nullopt;
}

int Run(const GathervCall& c, const CollEnv& env) {
  // Only the arguments MPI reads on this rank: a non-root's receive type,
  // and the root's send type with MPI_IN_PLACE, may be anything.
  const bool root = env.rank == c.root;
  GathervCall n = c;
  if (!(root && c.sendbuf == MPI_IN_PLACE)) n.sendtype = NormalFormOf(c.sendtype);
  if (root) n.recvtype = NormalFormOf(c.recvtype);
  return n.Native(env.comm);
}

}  // namespace

const AlgorithmImpl<GathervCall> kGathervAsNormalized = {
    Algorithm::kGathervAsNormalized, Need, Run};

}  // namespace colltune::shim
