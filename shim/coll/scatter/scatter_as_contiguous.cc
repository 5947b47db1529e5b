// Seed 003's GL1 for MPI_Scatter: each count of a derived datatype passed as
// one element of MPI_Type_contiguous(count, type) (shim/coll/whole_type.h),
// built once per type and count. The type map, and so the signature, stay
// the user's: each rank may take this path on its own (a table's layout
// rule); predefined and dense types, and counts below 2, pass as they are.
//
// Cost: MPI_Scatter with the contiguous types.
#include "shim/coll/mockups.h"
#include "shim/coll/whole_type.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ScatterCall& c, const CollEnv& env) {
  return RootInRange(c.root, env) ? std::optional<uint64_t>(0) : std::nullopt;
}

int Run(const ScatterCall& c, const CollEnv& env) {
  // Only the arguments MPI reads on this rank: a non-root's send type, and
  // the root's receive type with MPI_IN_PLACE, may be anything.
  const bool root = env.rank == c.root;
  ScatterCall n = c;
  if (root) UseWhole(&n.sendcount, &n.sendtype);
  if (!(root && c.recvbuf == MPI_IN_PLACE)) UseWhole(&n.recvcount, &n.recvtype);
  return n.Native(env.comm);
}

}  // namespace

const AlgorithmImpl<ScatterCall> kScatterAsContiguous = {
    Algorithm::kScatterAsContiguous, Need, Run};

}  // namespace colltune::shim
