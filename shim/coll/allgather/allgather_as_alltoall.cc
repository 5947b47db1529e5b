// GL2: MPI_Allgather(n) as MPI_Alltoall of a buffer holding p copies of the
// own block.
//
// Ranks may describe their blocks with different datatypes, so the copies
// are packed bytes and the exchange is of MPI_BYTE. A rank whose receive
// type is dense receives straight into its receive buffer; any other stages
// the p blocks in scratch and unpacks them. Scratch bound, the same on every
// rank: p * n bytes for the copies and p * n for staging.
//
// Cost: MPI_Alltoall(n bytes per pair); scratch: p*n bytes, + p*n when the
//   receive type is not dense.
#include <cstring>

#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"
#include "shim/coll/blocks.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AllgatherCall& c, const CollEnv& env) {
  return BlockBuffers(c, env, 2);
}

int Run(const AllgatherCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  const int64_t total = bytes * env.size;
  Layout recv;
  int rc = GetLayout(c.recvtype, &recv);
  if (rc != MPI_SUCCESS) return rc;
  ScratchPool::Lease lease =
      env.scratch->Acquire(AlignUp(total) + (recv.dense ? 0 : AlignUp(total)));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  char* copies = static_cast<char*>(carve.Take(total));
  void* staging = recv.dense ? c.recvbuf : carve.Take(total);
  rc = PackBlock(OwnBlock(c, env.rank), copies);
  if (rc != MPI_SUCCESS) return rc;
  for (int i = 1; i < env.size; ++i) memcpy(copies + i * bytes, copies, bytes);
  const int b = static_cast<int>(bytes);
  rc = PMPI_Alltoall(copies, b, MPI_BYTE, staging, b, MPI_BYTE, env.comm);
  if (rc != MPI_SUCCESS || recv.dense) return rc;
  return UnpackGathered(staging, c, env.size, recv);
}

}  // namespace

const AlgorithmImpl<AllgatherCall> kAllgatherAsAlltoall = {
    Algorithm::kAllgatherAsAlltoall, Need, Run};

}  // namespace colltune::shim
