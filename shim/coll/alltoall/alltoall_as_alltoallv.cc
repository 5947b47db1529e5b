// GL8: MPI_Alltoall(n) as MPI_Alltoallv with equal counts.
//
// The exchange is of packed bytes (MPI_BYTE, counts of n bytes): ranks may
// use different datatypes, and MPICH 4.0's MPI_Alltoallv truncates messages
// with some derived datatypes (in place among them). Dense buffers are used as
// they are; others are staged through scratch. MPI_IN_PLACE keeps its meaning.
// Scratch bound: 2 * p * n bytes and 2p ints (send and receive counts are the
// same in bytes).
//
// Cost: MPI_Alltoallv(n bytes per pair); scratch: 2p ints, + p*n bytes when
//   the receive type is not dense, + p*n when the send type is not dense.
#include "shim/coll/mockups.h"
#include "shim/coll/blocks.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AlltoallCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!FitsIntBlocks(bytes, env.size)) return std::nullopt;
  return IntArraysBytes(env.size, 2) +
         2 * AlignUp(static_cast<uint64_t>(bytes) * env.size);
}

int Run(const AlltoallCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  const int64_t total = bytes * env.size;
  const int64_t recv_elements = static_cast<int64_t>(c.recvcount) * env.size;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  Layout send, recv;
  int rc = GetLayout(c.recvtype, &recv);
  if (rc != MPI_SUCCESS) return rc;
  if (!in_place && (rc = GetLayout(c.sendtype, &send)) != MPI_SUCCESS) return rc;
  const bool send_packed = !in_place && !send.dense;
  ScratchPool::Lease lease = env.scratch->Acquire(
      IntArraysBytes(env.size, 2) + (recv.dense ? 0 : AlignUp(total)) +
      (send_packed ? AlignUp(total) : 0));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  int* counts = TakeInts(carve, env.size);
  int* displs = TakeInts(carve, env.size);
  EqualBlocks(env.size, static_cast<int>(bytes), counts, displs);
  void* out = recv.dense ? c.recvbuf : carve.Take(total);
  const void* in = MPI_IN_PLACE;
  if (in_place) {
    if (!recv.dense &&
        (rc = PackBytes(c.recvbuf, recv_elements, c.recvtype, recv, out)) !=
            MPI_SUCCESS) {
      return rc;
    }
  } else if (send_packed) {
    void* packed = carve.Take(total);
    rc = PackBytes(c.sendbuf, static_cast<int64_t>(c.sendcount) * env.size,
                   c.sendtype, send, packed);
    if (rc != MPI_SUCCESS) return rc;
    in = packed;
  } else {
    in = c.sendbuf;
  }
  rc = PMPI_Alltoallv(in, counts, displs, MPI_BYTE, out, counts, displs,
                      MPI_BYTE, env.comm);
  if (rc != MPI_SUCCESS || recv.dense) return rc;
  return UnpackBytes(out, c.recvbuf, recv_elements, c.recvtype, recv);
}

}  // namespace

const AlgorithmImpl<AlltoallCall> kAlltoallAsAlltoallv = {
    Algorithm::kAlltoallAsAlltoallv, Need, Run};

}  // namespace colltune::shim
