// GL4: MPI_Allgather(n) as MPI_Allgatherv with p equal counts.
//
// The exchange is of packed bytes (MPI_BYTE, counts of n bytes): MPI lets
// ranks describe their blocks with different datatypes, and MPICH 4.0's
// MPI_Allgatherv truncates messages between ranks whose derived datatypes
// differ, although their signatures match. A rank whose receive type is dense
// works in its receive buffer (in place when the call is); others stage the p
// blocks in scratch. Scratch bound: p*n + n bytes and 2p ints.
//
// Cost: MPI_Allgatherv(n bytes per rank); scratch: 2p ints, + p*n bytes when
//   the receive type is not dense, + n when the send type is not dense.
#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"
#include "shim/coll/blocks.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AllgatherCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!FitsIntBlocks(bytes, env.size)) return std::nullopt;
  return IntArraysBytes(env.size, 2) +
         AlignUp(static_cast<uint64_t>(bytes) * env.size) +
         AlignUp(static_cast<uint64_t>(bytes));
}

int Run(const AllgatherCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  const int64_t total = bytes * env.size;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  const Block own = OwnBlock(c, env.rank);
  Layout send, recv;
  int rc = GetLayouts(c.sendtype, in_place, c.recvtype, &send, &recv);
  if (rc != MPI_SUCCESS) return rc;
  const bool send_packed = !in_place && !send.dense;
  ScratchPool::Lease lease = env.scratch->Acquire(
      IntArraysBytes(env.size, 2) + (recv.dense ? 0 : AlignUp(total)) +
      (send_packed ? AlignUp(bytes) : 0));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  int* counts = TakeInts(carve, env.size);
  int* displs = TakeInts(carve, env.size);
  EqualBlocks(env.size, static_cast<int>(bytes), counts, displs);
  char* all = recv.dense ? static_cast<char*>(c.recvbuf)
                         : static_cast<char*>(carve.Take(total));
  const void* mine = MPI_IN_PLACE;
  if (in_place) {
    // The own block must sit at its place in the bytes being gathered.
    if (!recv.dense && (rc = PackBlock(own, all + env.rank * bytes)) != MPI_SUCCESS) {
      return rc;
    }
  } else if (send_packed) {
    void* packed = carve.Take(bytes);
    if ((rc = PackBlock(own, packed)) != MPI_SUCCESS) return rc;
    mine = packed;
  } else {
    mine = c.sendbuf;
  }
  rc = PMPI_Allgatherv(mine, static_cast<int>(bytes), MPI_BYTE, all, counts,
                       displs, MPI_BYTE, env.comm);
  if (rc != MPI_SUCCESS || recv.dense) return rc;
  return UnpackGathered(all, c, env.size, recv);
}

}  // namespace

const AlgorithmImpl<AllgatherCall> kAllgatherAsAllgatherv = {
    Algorithm::kAllgatherAsAllgatherv, Need, Run};

}  // namespace colltune::shim
