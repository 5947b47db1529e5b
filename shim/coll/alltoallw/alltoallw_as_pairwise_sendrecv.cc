// MPI_Alltoallw as p-1 rounds of MPI_Sendrecv on the communicator's private
// duplicate, each block with its own datatype at its byte displacement
// (alltoallv_as_pairwise_sendrecv.cc says how; the same exchange).
//
// Cost: p-1 MPI_Sendrecv (a block each way) + the own block by memcpy or a
//   Sendrecv to self; in place p-1 MPI_Sendrecv_replace; scratch: none.
#include "shim/coll/alltoallv/exchange.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AlltoallwCall& c, const CollEnv& env) {
  if (env.inter || env.p2p == nullptr) return std::nullopt;
  return 0;
}

int Run(const AlltoallwCall& c, const CollEnv& env) {
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  a2a::Side send, recv;
  a2a::SidesOf(c, &send, &recv);
  int64_t largest = 0;
  int rc = a2a::CheckSide(recv, env.size, nullptr, &largest);
  if (rc == MPI_SUCCESS && !in_place) rc = a2a::CheckSide(send, env.size, nullptr, &largest);
  if (rc != MPI_SUCCESS) return a2a::LocalError(env.comm, rc);
  MPI_Comm comm;
  if ((rc = P2PComm(env, &comm)) != MPI_SUCCESS) return rc;
  return a2a::Pairwise(send, recv, in_place, env.rank, env.size, comm, a2a::kAlltoallwTag);
}

}  // namespace

const AlgorithmImpl<AlltoallwCall> kAlltoallwAsPairwiseSendrecv = {
    Algorithm::kAlltoallwAsPairwiseSendrecv, Need, Run};

}  // namespace colltune::shim
