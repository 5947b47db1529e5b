// Seed 003's GL2/GL3 for MPI_Alltoall: MPI_Alltoall of the packed blocks,
// described by their types' dense twins (shim/coll/dense_twin.h): each rank
// packs its p blocks, receives p blocks packed and unpacks them (in place:
// the receive buffer is packed first). Counts, type sizes and signatures stay
// the user's, so each rank takes this path on its own; a dense type (or one
// without a twin) is used as it is.
//
// Cost: MPI_Alltoall(n bytes a block) + a pack and an unpack of p*n bytes;
//   scratch: p*n bytes for each side whose type is not dense.
#include "shim/coll/blocks.h"
#include "shim/coll/dense_twin.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AlltoallCall& c, const CollEnv& env) {
  return BlockBuffers(c, env, 2);
}

int Run(const AlltoallCall& c, const CollEnv& env) {
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  const int64_t all_in = static_cast<int64_t>(c.recvcount) * env.size;
  const int64_t all_out = static_cast<int64_t>(c.sendcount) * env.size;
  Layout recv, send;
  int rc = GetLayouts(c.sendtype, in_place, c.recvtype, &send, &recv);
  if (rc != MPI_SUCCESS) return rc;
  ScratchPool::Lease lease = env.scratch->Acquire(
      DenseViewBytes(all_in, recv) + (in_place ? 0 : DenseViewBytes(all_out, send)));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  DenseView in, out{MPI_IN_PLACE, 0, c.sendtype, false};
  rc = ViewDenseBlocks(c.recvbuf, c.recvcount, env.size, c.recvtype, recv, env, in_place,
                       carve, &in);
  if (rc == MPI_SUCCESS && !in_place) {
    rc = ViewDenseBlocks(c.sendbuf, c.sendcount, env.size, c.sendtype, send, env, true, carve,
                         &out);
  }
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Alltoall(out.buf, out.count, out.type, in.buf, in.count, in.type, env.comm);
  if (rc != MPI_SUCCESS || !in.staged) return rc;
  return UnpackBytes(in.buf, c.recvbuf, all_in, c.recvtype, recv);
}

}  // namespace

const AlgorithmImpl<AlltoallCall> kAlltoallAsPacked = {Algorithm::kAlltoallAsPacked, Need,
                                                       Run};

}  // namespace colltune::shim
