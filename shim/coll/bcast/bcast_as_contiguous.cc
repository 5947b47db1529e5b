// Seed 003's GL1 for MPI_Bcast: each count of a derived datatype passed as
// one element of MPI_Type_contiguous(count, type) (shim/coll/whole_type.h),
// built once per type and count. The type map, and so the signature, stay
// the user's: each rank may take this path on its own (a table's layout
// rule); predefined and dense types, and counts below 2, pass as they are.
//
// Cost: MPI_Bcast with the contiguous types.
#include "shim/coll/mockups.h"
#include "shim/coll/whole_type.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const BcastCall& c, const CollEnv& env) {
  return RootInRange(c.root, env) ? std::optional<uint64_t>(0) : std::nullopt;
}

int Run(const BcastCall& c, const CollEnv& env) {
  BcastCall n = c;
  UseWhole(&n.count, &n.datatype);
  return n.Native(env.comm);
}

}  // namespace

const AlgorithmImpl<BcastCall> kBcastAsContiguous = {Algorithm::kBcastAsContiguous, Need, Run};

}  // namespace colltune::shim
