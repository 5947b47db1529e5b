// Seed 003's GL1 for MPI_Allgather: each count of a derived datatype passed as
// one element of MPI_Type_contiguous(count, type) (shim/coll/whole_type.h),
// built once per type and count. The type map, and so the signature, stay
// the user's: each rank may take this path on its own (a table's layout
// rule); predefined and dense types, and counts below 2, pass as they are.
//
// Cost: MPI_Allgather with the contiguous types.
#include "shim/coll/mockups.h"
#include "shim/coll/whole_type.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AllgatherCall&, const CollEnv&) { return 0; }

int Run(const AllgatherCall& c, const CollEnv& env) {
  // Each rank's block as one element: blocks stay recvcount extents apart.
  AllgatherCall n = c;
  if (c.sendbuf != MPI_IN_PLACE) UseWhole(&n.sendcount, &n.sendtype);
  UseWhole(&n.recvcount, &n.recvtype);
  return n.Native(env.comm);
}

}  // namespace

const AlgorithmImpl<AllgatherCall> kAllgatherAsContiguous = {
    Algorithm::kAllgatherAsContiguous, Need, Run};

}  // namespace colltune::shim
