// MPI_Alltoallv as p-1 rounds of MPI_Sendrecv on the communicator's private
// duplicate: in round k each rank sends its block for rank+k and receives
// the block of rank-k, with the user's datatypes and displacements (no
// copies, no scratch); the own block is copied locally. In place, p rounds
// of MPI_Sendrecv_replace swap each pair's blocks where they lie.
//
// No rank learns the others' arguments, so nothing is agreed: a rank whose
// own arguments MPI forbids and libraries check on entry (a negative count,
// an invalid datatype) returns that error through the communicator's error
// handler without sending anything, as the library's MPI_Alltoallv does.
// Overlapping receive blocks are not checked: the same bytes are written as
// by the library, in an order MPI leaves undefined (docs/algorithms.md).
//
// Cost: p-1 MPI_Sendrecv (a block each way) + the own block by memcpy or a
//   Sendrecv to self; in place p-1 MPI_Sendrecv_replace; scratch: none.
#include "shim/coll/mockups.h"
#include "shim/coll/alltoallv/exchange.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AlltoallvCall& c, const CollEnv& env) {
  if (env.inter || env.p2p == nullptr) return std::nullopt;
  return 0;
}

int Run(const AlltoallvCall& c, const CollEnv& env) {
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  a2a::Side send, recv;
  int64_t largest = 0;
  if (a2a::SidesOf(c, &send, &recv) != MPI_SUCCESS) {
    return a2a::LocalError(env.comm, MPI_ERR_TYPE);
  }
  int rc = a2a::CheckSide(recv, env.size, nullptr, &largest);
  if (rc == MPI_SUCCESS && !in_place) rc = a2a::CheckSide(send, env.size, nullptr, &largest);
  if (rc != MPI_SUCCESS) return a2a::LocalError(env.comm, rc);
  MPI_Comm comm;
  if ((rc = P2PComm(env, &comm)) != MPI_SUCCESS) return rc;
  return a2a::Pairwise(send, recv, in_place, env.rank, env.size, comm, a2a::kAlltoallvTag);
}

}  // namespace

const AlgorithmImpl<AlltoallvCall> kAlltoallvAsPairwiseSendrecv = {
    Algorithm::kAlltoallvAsPairwiseSendrecv, Need, Run};

}  // namespace colltune::shim
