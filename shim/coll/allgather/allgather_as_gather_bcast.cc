// GL1: MPI_Allgather(n) as MPI_Gather(n) to rank 0, then MPI_Bcast(pn).
//
// No scratch. With MPI_IN_PLACE, rank 0 gathers in place and the other
// ranks send their own block of the receive buffer (their receive buffer is
// not significant in MPI_Gather, so no argument aliases another). The
// broadcast is of p*recvcount elements of each rank's own receive type: the
// type signatures match because the blocks' do. Every rank ends with rank 0's
// bytes.
//
// Cost: MPI_Gather(n) to rank 0 + MPI_Bcast(p*n); scratch: none.
#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"
#include "shim/coll/blocks.h"

namespace colltune::shim {
namespace {

constexpr int kRoot = 0;

std::optional<uint64_t> Need(const AllgatherCall& c, const CollEnv& env) {
  if (!FitsIntBlocks(c.KeyBytes(env), env.size)) return std::nullopt;
  return 0;
}

int Run(const AllgatherCall& c, const CollEnv& env) {
  int rc;
  if (env.rank == kRoot) {
    rc = PMPI_Gather(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount,
                     c.recvtype, kRoot, env.comm);
  } else {
    const Block own = OwnBlock(c, env.rank);
    rc = PMPI_Gather(own.buf, own.count, own.type, nullptr, 0, c.recvtype,
                     kRoot, env.comm);
  }
  if (rc != MPI_SUCCESS) return rc;
  // A zero-byte block moves nothing, whatever count a zero-size type has.
  const int all = c.KeyBytes(env) == 0 ? 0 : c.recvcount * env.size;
  return PMPI_Bcast(c.recvbuf, all, c.recvtype, kRoot, env.comm);
}

}  // namespace

const AlgorithmImpl<AllgatherCall> kAllgatherAsGatherBcast = {
    Algorithm::kAllgatherAsGatherBcast, Need, Run};

}  // namespace colltune::shim
