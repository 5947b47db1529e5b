// MPI_Exscan(n) as MPI_Scan(n) into scratch, then a shift by one rank: rank
// r < p-1 sends its inclusive prefix x_0 o ... o x_r to rank r+1, which is
// that rank's exclusive prefix (the converse of GL20, Scan as Exscan +
// Reduce_local).
//
// MPI_Scan applies any operation in rank order, so user-defined and
// non-commutative operations are eligible. The scan result goes to scratch,
// never to recvbuf: with MPI_IN_PLACE recvbuf is the input, and rank 0's
// recvbuf, whose contents MPI leaves undefined, is never written (the
// libraries leave it as it was). The shift is one MPI_Sendrecv per rank
// (only a send at rank 0, a receive at rank p-1) of the user's datatype on
// the communicator's private duplicate (CollEnv::p2p), so a user's wildcard
// receive never matches it. Scratch bound: n elements on every rank. Not
// eligible on a communicator without a private duplicate (the same on every
// rank of it).
//
// Cost: MPI_Scan(n) + MPI_Sendrecv(n) to r+1 and from r-1 (a Send at rank 0,
//   a Recv at p-1); scratch: n.
#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

constexpr int kShiftTag = 0x4578;  // "Ex"

std::optional<uint64_t> Need(const ExscanCall& c, const CollEnv& env) {
  Layout l;
  if (c.count < 0 || env.p2p == nullptr || GetLayout(c.datatype, &l) != MPI_SUCCESS) {
    return std::nullopt;
  }
  return AlignUp(l.Span(c.count));
}

int Run(const ExscanCall& c, const CollEnv& env) {
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  // Every rank alike, before any data moves (the duplicate is collective on
  // first use).
  MPI_Comm p2p = MPI_COMM_NULL;
  if (env.size > 1 && (rc = P2PComm(env, &p2p)) != MPI_SUCCESS) return rc;
  ScratchPool::Lease lease = env.scratch->Acquire(AlignUp(l.Span(c.count)));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  void* prefix = l.Base(lease.data());
  const void* input = c.sendbuf == MPI_IN_PLACE ? c.recvbuf : c.sendbuf;
  rc = PMPI_Scan(input, prefix, c.count, c.datatype, c.op, env.comm);
  if (rc != MPI_SUCCESS || env.size == 1) return rc;
  const int last = env.size - 1;
  if (env.rank == 0) {
    return PMPI_Send(prefix, c.count, c.datatype, 1, kShiftTag, p2p);
  }
  if (env.rank == last) {
    return PMPI_Recv(c.recvbuf, c.count, c.datatype, last - 1, kShiftTag, p2p,
                     MPI_STATUS_IGNORE);
  }
  return PMPI_Sendrecv(prefix, c.count, c.datatype, env.rank + 1, kShiftTag, c.recvbuf,
                       c.count, c.datatype, env.rank - 1, kShiftTag, p2p,
                       MPI_STATUS_IGNORE);
}

}  // namespace

const AlgorithmImpl<ExscanCall> kExscanAsScanShift = {Algorithm::kExscanAsScanShift,
                                                      Need, Run};

}  // namespace colltune::shim
