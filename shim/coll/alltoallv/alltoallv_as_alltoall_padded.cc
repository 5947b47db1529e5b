// Seed 000's guideline 2 for MPI_Alltoallv: MPI_Allreduce(MAX) of the
// largest block, then MPI_Alltoall of blocks padded to it (packed bytes, as
// MPI_BYTE), each block copied in and out by its displacement.
//
// The same MPI_Allreduce carries a flag for "some rank's arguments are what
// MPI forbids" (a negative count, an invalid datatype, overlapping receive
// blocks, send and receive buffers at one address): then, as when nothing
// moves at all or 2p padded blocks exceed the scratch budget (or int
// counts), every rank runs the library's MPI_Alltoallv, which reports the
// error itself. The padded size is known only after the MPI_Allreduce and is
// the same on every rank, so these verdicts are too.
//
// Scratch: `need` is what runs before the agreement (the span check of the
// receive blocks, 16p bytes); after it, 2 * p * max bytes, at most the
// budget.
//
// Cost: MPI_Allreduce(2 int64) + MPI_Alltoall(b bytes per pair, b the largest
//   block of any rank), or the library's MPI_Alltoallv; scratch: 16p bytes,
//   then 2*p*b bytes.
#include <climits>

#include "shim/coll/mockups.h"
#include "shim/coll/alltoallv/exchange.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AlltoallvCall& c, const CollEnv& env) {
  if (env.inter) return std::nullopt;
  return a2a::SpanScratch(env.size);
}

int Run(const AlltoallvCall& c, const CollEnv& env) {
  const int p = env.size;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  a2a::Side send, recv;
  // [0]: the largest block in bytes, [1]: 1 if the arguments are erroneous.
  int64_t mine[2] = {0, 0};
  if (a2a::SidesOf(c, &send, &recv) != MPI_SUCCESS) {
    mine[1] = 1;
  } else {
    ScratchPool::Lease lease = env.scratch->Acquire(a2a::SpanScratch(p));
    if (!lease.ok()) return MPI_ERR_NO_MEM;
    if (a2a::CheckSide(recv, p, lease.data(), &mine[0]) != MPI_SUCCESS ||
        (!in_place && (c.sendbuf == c.recvbuf ||
                       a2a::CheckSide(send, p, nullptr, &mine[0]) != MPI_SUCCESS))) {
      mine[1] = 1;
    }
  }
  int64_t all[2] = {0, 0};
  int rc = PMPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MAX, env.comm);
  if (rc != MPI_SUCCESS) return rc;
  const int64_t padded = all[0];
  if (all[1] != 0 || padded == 0 || padded > INT_MAX / p ||
      2 * AlignUp(static_cast<uint64_t>(padded) * p) > env.mem_budget) {
    return c.Native(env.comm);
  }
  const uint64_t total = static_cast<uint64_t>(padded) * p;
  ScratchPool::Lease lease = env.scratch->Acquire(2 * AlignUp(total));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  char* out = static_cast<char*>(carve.Take(total));
  char* in = static_cast<char*>(carve.Take(total));
  Layout ls, lr;
  if ((rc = GetLayout(send.type, &ls)) != MPI_SUCCESS) return rc;
  if ((rc = GetLayout(recv.type, &lr)) != MPI_SUCCESS) return rc;
  for (int j = 0; j < p; ++j) {
    rc = PackBytes(send.At(j), send.counts[j], send.type, ls, out + j * padded);
    if (rc != MPI_SUCCESS) return rc;
  }
  rc = PMPI_Alltoall(out, static_cast<int>(padded), MPI_BYTE, in, static_cast<int>(padded),
                     MPI_BYTE, env.comm);
  for (int j = 0; j < p && rc == MPI_SUCCESS; ++j) {
    rc = UnpackBytes(in + j * padded, recv.At(j), recv.counts[j], recv.type, lr);
  }
  return rc;
}

}  // namespace

const AlgorithmImpl<AlltoallvCall> kAlltoallvAsAlltoallPadded = {
    Algorithm::kAlltoallvAsAlltoallPadded, Need, Run};

}  // namespace colltune::shim
