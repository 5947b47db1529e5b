// GL13: MPI_Gather(n) as MPI_Reduce(pn) with MPI_BOR: every rank zeroes a
// buffer of p blocks, puts its own block in place, and the bitwise OR at the
// root assembles the blocks.
//
// As in allgather_as_allreduce the OR runs on packed bytes (MPI_BYTE, for
// which MPI_BOR is defined and exact), not on the user's elements, so every
// datatype is eligible. The root receives into its receive buffer when its
// type is dense, else into scratch it unpacks; it never reduces in place
// (MPICH 4.0.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root other than
// 0). Scratch bound for every rank: 2 * p * n bytes.
//
// Cost: MPI_Reduce(p*n bytes, MPI_BOR) to the root; scratch: p*n bytes, + p*n
//   at a root whose receive type is not dense.
#include <cstring>

#include "shim/coll/blocks.h"
#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const GatherCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!RootedBlocksFit(c, env)) return std::nullopt;
  return 2 * AlignUp(static_cast<uint64_t>(bytes) * env.size);
}

int Run(const GatherCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  const int64_t total = bytes * env.size;
  const bool is_root = env.rank == c.root;
  Layout recv;
  int rc;
  if (is_root && (rc = GetLayout(c.recvtype, &recv)) != MPI_SUCCESS) return rc;
  const bool recv_direct = is_root && recv.dense;
  const bool staging = is_root && !recv.dense;
  ScratchPool::Lease lease =
      env.scratch->Acquire(AlignUp(total) + (staging ? AlignUp(total) : 0));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  char* work = static_cast<char*>(carve.Take(total));
  memset(work, 0, total);
  // Packed before the reduction overwrites an in-place root's recvbuf.
  rc = PackBlock(OwnBlock(c, env.rank), work + env.rank * bytes);
  if (rc != MPI_SUCCESS) return rc;
  void* result = recv_direct ? c.recvbuf : staging ? carve.Take(total) : nullptr;
  rc = PMPI_Reduce(work, result, static_cast<int>(total), MPI_BYTE, MPI_BOR,
                   c.root, env.comm);
  if (rc != MPI_SUCCESS || !staging) return rc;
  return UnpackGathered(result, c, env.size, recv);
}

}  // namespace

const AlgorithmImpl<GatherCall> kGatherAsReduce = {Algorithm::kGatherAsReduce,
                                                   Need, Run};

}  // namespace colltune::shim
