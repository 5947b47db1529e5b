// GL11: MPI_Gather(n) as MPI_Allgather(n); the non-roots receive all blocks
// into scratch and drop them.
//
// A non-root's receive arguments are not significant in MPI_Gather, so every
// rank exchanges packed bytes (MPI_BYTE): a rank sends its own block straight
// from its buffer when the type is dense (and the block is not the in-place
// root's, which lies inside the receive buffer), else a packed copy; the root
// receives into its receive buffer when that type is dense, else into
// scratch it then unpacks. Scratch bound for every rank: p*n + n bytes.
//
// Cost: MPI_Allgather(n bytes each); scratch: p*n bytes (none at a root whose
//   receive type is dense), + n to pack the own block where its type is not
//   dense or at an in-place root.
#include "shim/coll/blocks.h"
#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const GatherCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!RootedBlocksFit(c, env)) return std::nullopt;
  return AlignUp(static_cast<uint64_t>(bytes) * env.size) +
         AlignUp(static_cast<uint64_t>(bytes));
}

int Run(const GatherCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  const int64_t total = bytes * env.size;
  const bool is_root = env.rank == c.root;
  const Block own = OwnBlock(c, env.rank);
  Layout send, recv;
  int rc = GetLayout(own.type, &send);
  if (rc != MPI_SUCCESS) return rc;
  if (is_root && (rc = GetLayout(c.recvtype, &recv)) != MPI_SUCCESS) return rc;
  const bool send_direct = send.dense && !(is_root && c.sendbuf == MPI_IN_PLACE);
  const bool recv_direct = is_root && recv.dense;
  ScratchPool::Lease lease = env.scratch->Acquire(
      (recv_direct ? 0 : AlignUp(total)) + (send_direct ? 0 : AlignUp(bytes)));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  void* all = recv_direct ? c.recvbuf : carve.Take(total);
  const void* mine = own.buf;
  if (!send_direct) {
    void* packed = carve.Take(bytes);
    if ((rc = PackBlock(own, packed)) != MPI_SUCCESS) return rc;
    mine = packed;
  }
  const int b = static_cast<int>(bytes);
  rc = PMPI_Allgather(mine, b, MPI_BYTE, all, b, MPI_BYTE, env.comm);
  if (rc != MPI_SUCCESS || !is_root || recv_direct) return rc;
  return UnpackGathered(all, c, env.size, recv);
}

}  // namespace

const AlgorithmImpl<GatherCall> kGatherAsAllgather = {
    Algorithm::kGatherAsAllgather, Need, Run};

}  // namespace colltune::shim
