// Seed 003's GL4 for MPI_Alltoallv: the call with each datatype replaced by
// its normal form (shim/coll/normal_form.h), the same type map described
// flat. The type map, and so the counts and the signature, stay the user's:
// each rank may take this path on its own (a table's layout rule), and a
// predefined or already flat type is passed as it is.
//
// Cost: MPI_Alltoallv with the normal form; the form is built once per type.
#include "shim/coll/mockups.h"
#include "shim/coll/normal_form.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AlltoallvCall&, const CollEnv&) { return 0; }

int Run(const AlltoallvCall& c, const CollEnv& env) {
  AlltoallvCall n = c;
  if (c.sendbuf != MPI_IN_PLACE) n.sendtype = NormalFormOf(c.sendtype);
  n.recvtype = NormalFormOf(c.recvtype);
  return n.Native(env.comm);
}

}  // namespace

const AlgorithmImpl<AlltoallvCall> kAlltoallvAsNormalized = {
    Algorithm::kAlltoallvAsNormalized, Need, Run};

}  // namespace colltune::shim
