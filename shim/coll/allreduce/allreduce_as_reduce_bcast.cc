// GL5: MPI_Allreduce(n) as MPI_Reduce(n) to rank 0, then MPI_Bcast(n).
// Needs no scratch; correct for every datatype and operation MPI_Allreduce
// accepts, since MPI_Reduce accepts the same (including non-commutative
// operations, which it applies in rank order). The broadcast gives every rank
// the root's bytes, so all ranks end with identical results.
//
// Cost: MPI_Reduce(n) + MPI_Bcast(n); scratch: none.
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

constexpr int kRoot = 0;

std::optional<uint64_t> Need(const AllreduceCall&, const CollEnv&) {
  return 0;
}

int Run(const AllreduceCall& c, const CollEnv& env) {
  int rc;
  if (env.rank == kRoot) {
    rc = PMPI_Reduce(c.sendbuf, c.recvbuf, c.count, c.datatype, c.op, kRoot,
                     env.comm);
  } else if (c.sendbuf == MPI_IN_PLACE) {
    // The input is in recvbuf. MPI_Reduce accepts MPI_IN_PLACE at the root
    // only, and a non-root's receive buffer is not significant, so recvbuf
    // becomes the send buffer and no receive buffer is passed.
    rc = PMPI_Reduce(c.recvbuf, nullptr, c.count, c.datatype, c.op, kRoot,
                     env.comm);
  } else {
    rc = PMPI_Reduce(c.sendbuf, c.recvbuf, c.count, c.datatype, c.op, kRoot,
                     env.comm);
  }
  if (rc != MPI_SUCCESS) return rc;
  return PMPI_Bcast(c.recvbuf, c.count, c.datatype, kRoot, env.comm);
}

}  // namespace

const AlgorithmImpl<AllreduceCall> kAllreduceAsReduceBcast = {
    Algorithm::kAllreduceAsReduceBcast, Need, Run};

}  // namespace colltune::shim
