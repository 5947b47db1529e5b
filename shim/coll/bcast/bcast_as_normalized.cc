// Seed 003's GL4 for MPI_Bcast: the call with each datatype replaced by
// its normal form (shim/coll/normal_form.h), the same type map described
// flat. The type map, and so the count and the signature, stay the user's:
// each rank may take this path on its own (a table's layout rule), and a
// predefined or already flat type is passed as it is.
//
// Cost: MPI_Bcast with the normal form; the form is built once per type.
#include "shim/coll/mockups.h"
#include "shim/coll/normal_form.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const BcastCall& c, const CollEnv& env) {
  return RootInRange(c.root, env) ? std::optional<uint64_t>(0) : std::nullopt;
}

int Run(const BcastCall& c, const CollEnv& env) {
  BcastCall n = c;
  n.datatype = NormalFormOf(c.datatype);
  return n.Native(env.comm);
}

}  // namespace

const AlgorithmImpl<BcastCall> kBcastAsNormalized = {Algorithm::kBcastAsNormalized, Need, Run};

}  // namespace colltune::shim
