// MPI_Barrier as the dissemination barrier (Hensgen, Finkel and Manber
// 1988): in round k = 0 .. ceil(log2 p)-1 each rank sends an empty message
// to rank + 2^k and receives one from rank - 2^k (mod p), with MPI_Sendrecv
// on the communicator's private duplicate. After round k a rank has heard,
// directly or through others, from the 2^(k+1) - 1 ranks before it, so after
// the last round from all p - 1 others: none leaves before all have entered.
//
// Cost: ceil(log2 p) MPI_Sendrecv of 0 bytes; scratch: none.
#include "shim/coll/alltoallv/exchange.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const BarrierCall& c, const CollEnv& env) {
  if (env.inter || env.p2p == nullptr) return std::nullopt;
  return 0;
}

int Run(const BarrierCall& c, const CollEnv& env) {
  const int p = env.size;
  if (p == 1) return MPI_SUCCESS;
  MPI_Comm comm;
  int rc = P2PComm(env, &comm);
  // Distinct addresses: some libraries refuse equal send and receive
  // pointers even for empty messages.
  char out = 0, in = 0;
  for (int dist = 1; dist < p && rc == MPI_SUCCESS; dist *= 2) {
    rc = PMPI_Sendrecv(&out, 0, MPI_BYTE, (env.rank + dist) % p, a2a::kBarrierTag, &in, 0,
                       MPI_BYTE, (env.rank - dist + p) % p, a2a::kBarrierTag, comm,
                       MPI_STATUS_IGNORE);
  }
  return rc;
}

}  // namespace

const AlgorithmImpl<BarrierCall> kBarrierAsDissemination = {
    Algorithm::kBarrierAsDissemination, Need, Run};

}  // namespace colltune::shim
