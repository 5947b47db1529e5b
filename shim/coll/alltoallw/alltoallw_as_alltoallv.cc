// MPI_Alltoallw as MPI_Alltoallv, where Alltoallw's generality is unused:
// every block of a rank's send side has one datatype, every block of its
// receive side one datatype, and each byte displacement is a multiple of
// that datatype's extent (> 0), so it becomes an element displacement.
//
// Each rank judges its own arguments; one MPI_Allreduce(MIN) of two ints
// makes the verdict common: [0] all ranks' arguments fit (and none is what
// MPI forbids: negative counts, invalid datatypes, overlapping receive
// blocks, send and receive buffers at one address), [1] no rank moves any
// byte. Unless all fit and some data moves, every rank runs the library's
// MPI_Alltoallw. Under MPICH the datatypes must also be contiguous: MPICH
// 4.0's MPI_Alltoallv truncates messages of some derived datatypes that its
// MPI_Alltoallw moves (docs/algorithms.md).
//
// Scratch: the span check of the receive blocks (16p bytes), then the two
// element displacement arrays (2p ints).
//
// Cost: MPI_Allreduce(2 ints) + MPI_Alltoallv(the call's blocks), or the
//   library's MPI_Alltoallw; scratch: 16p bytes + 2p ints.
#include "shim/coll/alltoallv/exchange.h"
#include "shim/coll/mockups.h"
#include "shim/coll/blocks.h"

namespace colltune::shim {
namespace {

uint64_t Scratch(int p) { return a2a::SpanScratch(p) + IntArraysBytes(p, 2); }

std::optional<uint64_t> Need(const AlltoallwCall& c, const CollEnv& env) {
  if (env.inter) return std::nullopt;
  return Scratch(env.size);
}

// Whether side `s` uses one datatype with displacements in its extent; its
// element displacements go to `displs`.
bool OneType(const a2a::Side& s, int p, int* displs) {
  Layout l;
  const MPI_Datatype t = s.types[0];
  if (GetLayout(t, &l) != MPI_SUCCESS || l.extent <= 0) return false;
  if (kGappedTypesBreakGatherScatter && !l.Contiguous()) return false;
  for (int j = 0; j < p; ++j) {
    if (s.types[j] != t || s.displs[j] % l.extent != 0) return false;
    displs[j] = static_cast<int>(s.displs[j] / l.extent);
  }
  return true;
}

int Run(const AlltoallwCall& c, const CollEnv& env) {
  const int p = env.size;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  ScratchPool::Lease lease = env.scratch->Acquire(Scratch(p));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  void* spans = carve.Take(16 * static_cast<uint64_t>(p));  // SpanScratch(p)
  int* sdispls = TakeInts(carve, p);
  int* rdispls = TakeInts(carve, p);
  a2a::Side send, recv;
  a2a::SidesOf(c, &send, &recv);
  int64_t largest = 0;
  const bool fits =
      a2a::CheckSide(recv, p, spans, &largest) == MPI_SUCCESS && OneType(recv, p, rdispls) &&
      (in_place || (c.sendbuf != c.recvbuf &&
                    a2a::CheckSide(send, p, nullptr, &largest) == MPI_SUCCESS &&
                    OneType(send, p, sdispls)));
  int mine[2] = {fits ? 1 : 0, largest == 0 ? 1 : 0};
  int all[2] = {0, 0};
  int rc = PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, env.comm);
  if (rc != MPI_SUCCESS) return rc;
  if (all[0] == 0 || all[1] == 1) return c.Native(env.comm);
  if (in_place) {
    // The send arguments are ignored; the receive ones are given, as some
    // library versions look at them anyway.
    return PMPI_Alltoallv(MPI_IN_PLACE, c.recvcounts, rdispls, c.recvtypes[0], c.recvbuf,
                          c.recvcounts, rdispls, c.recvtypes[0], env.comm);
  }
  return PMPI_Alltoallv(c.sendbuf, c.sendcounts, sdispls, c.sendtypes[0], c.recvbuf,
                        c.recvcounts, rdispls, c.recvtypes[0], env.comm);
}

}  // namespace

const AlgorithmImpl<AlltoallwCall> kAlltoallwAsAlltoallv = {
    Algorithm::kAlltoallwAsAlltoallv, Need, Run};

}  // namespace colltune::shim
