// MPI_Allgatherv(m) as MPI_Gatherv(m) to rank 0, then MPI_Bcast(m) of all
// blocks (the irregular form of GL1, Allgather as Gather + Bcast).
//
// The gather is the call's own, rooted at 0: rank 0 gathers into recvbuf
// (in place when the call is), the others send their block (with
// MPI_IN_PLACE, their own block of recvbuf; their receive arguments are not
// significant in MPI_Gatherv, so nothing aliases). The broadcast then sends
// every block to its displacement at once: each rank describes its blocks
// with one datatype built from its own recvtype, counts and displacements
// (MPI_Type_create_hindexed, freed after the call), or, where the blocks
// lie back to back in rank order, with recvtype and the total count. The
// type signatures match because the blocks' do, whatever datatype each rank
// uses. A type map writes only its elements, so gaps between and inside
// blocks stay as the caller left them; every rank's own block is rewritten
// with the bytes it sent. Scratch bound: p displacements (MPI_Aint).
// Not eligible when the total exceeds 2^31 bytes (one datatype's size is an
// int), a rank-invariant test on the message-size key.
//
// Cost: MPI_Gatherv(m) to rank 0 + MPI_Bcast(m); scratch: none when the blocks
//   lie in rank order, else p MPI_Aint (for an hindexed datatype).
#include <climits>

#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"

namespace colltune::shim {
namespace {

constexpr int kRoot = 0;

uint64_t DisplsBytes(int p) {
  return AlignUp(sizeof(MPI_Aint) * static_cast<uint64_t>(p));
}

std::optional<uint64_t> Need(const AllgathervCall& c, const CollEnv& env) {
  const int64_t total = c.KeyBytes(env);
  if (total < 0 || total > INT_MAX) return std::nullopt;
  return DisplsBytes(env.size);
}

// True if block i starts where block i-1 ends, for every i.
bool InRankOrder(const AllgathervCall& c, int p) {
  int64_t next = c.displs[0];
  for (int i = 0; i < p; ++i) {
    if (c.displs[i] != next) return false;
    next += c.recvcounts[i];
  }
  return true;
}

int Broadcast(const AllgathervCall& c, const CollEnv& env) {
  Layout l;
  int rc = GetLayout(c.recvtype, &l);
  if (rc != MPI_SUCCESS) return rc;
  if (InRankOrder(c, env.size)) {
    int64_t count = 0;
    for (int i = 0; i < env.size; ++i) count += c.recvcounts[i];
    return PMPI_Bcast(l.At(c.recvbuf, c.displs[0]), static_cast<int>(count),
                      c.recvtype, kRoot, env.comm);
  }
  ScratchPool::Lease lease = env.scratch->Acquire(DisplsBytes(env.size));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  MPI_Aint* displs = static_cast<MPI_Aint*>(lease.data());
  for (int i = 0; i < env.size; ++i) {
    displs[i] = static_cast<MPI_Aint>(c.displs[i]) * l.extent;
  }
  MPI_Datatype all;
  rc = PMPI_Type_create_hindexed(env.size, c.recvcounts, displs, c.recvtype, &all);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Type_commit(&all);
  if (rc == MPI_SUCCESS) rc = PMPI_Bcast(c.recvbuf, 1, all, kRoot, env.comm);
  const int freed = PMPI_Type_free(&all);
  return rc != MPI_SUCCESS ? rc : freed;
}

int Run(const AllgathervCall& c, const CollEnv& env) {
  int rc;
  if (env.rank == kRoot) {
    rc = PMPI_Gatherv(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcounts,
                      c.displs, c.recvtype, kRoot, env.comm);
  } else {
    const Block own = OwnBlock(c, env.rank);
    rc = PMPI_Gatherv(own.buf, own.count, own.type, nullptr, c.recvcounts, c.displs,
                      c.recvtype, kRoot, env.comm);
  }
  if (rc != MPI_SUCCESS) return rc;
  return Broadcast(c, env);
}

}  // namespace

const AlgorithmImpl<AllgathervCall> kAllgathervAsGathervBcast = {
    Algorithm::kAllgathervAsGathervBcast, Need, Run};

}  // namespace colltune::shim
