// Seed 003's GL2/GL3 for MPI_Allgather: MPI_Allgather of the packed blocks,
// described by their types' dense twins (shim/coll/dense_twin.h): each rank
// packs its block, receives the p blocks packed and unpacks them. Counts,
// type sizes and signatures stay the user's, so each rank takes this path on
// its own; a dense type (or one without a twin) is used as it is.
//
// Cost: MPI_Allgather(n bytes each) + a pack of n and an unpack of p*n bytes;
//   scratch: p*n bytes where the receive type is not dense, + n where the send
//   type is not.
#include "shim/coll/blocks.h"
#include "shim/coll/dense_twin.h"
#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AllgatherCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!FitsIntBlocks(bytes, env.size)) return std::nullopt;
  return AlignUp(static_cast<uint64_t>(bytes) * env.size) + AlignUp(bytes);
}

int Run(const AllgatherCall& c, const CollEnv& env) {
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  const int64_t all = static_cast<int64_t>(c.recvcount) * env.size;
  Layout recv, send;
  int rc = GetLayouts(c.sendtype, in_place, c.recvtype, &send, &recv);
  if (rc != MPI_SUCCESS) return rc;
  ScratchPool::Lease lease = env.scratch->Acquire(
      DenseViewBytes(all, recv) + (in_place ? 0 : DenseViewBytes(c.sendcount, send)));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  DenseView in, out{MPI_IN_PLACE, 0, c.sendtype, false};
  rc = ViewDenseBlocks(c.recvbuf, c.recvcount, env.size, c.recvtype, recv, env, false, carve,
                       &in);
  if (rc != MPI_SUCCESS) return rc;
  if (in_place && in.staged) {
    // The own block goes to its place among the packed blocks.
    rc = PackBlock(OwnBlock(c, env.rank), static_cast<char*>(in.buf) +
                                              env.rank * c.recvcount * recv.size);
  } else if (!in_place) {
    rc = ViewDense(c.sendbuf, c.sendcount, c.sendtype, send, env, true, carve, &out);
  }
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Allgather(out.buf, out.count, out.type, in.buf, in.count, in.type, env.comm);
  if (rc != MPI_SUCCESS || !in.staged) return rc;
  return UnpackGathered(in.buf, c, env.size, recv);
}

}  // namespace

const AlgorithmImpl<AllgatherCall> kAllgatherAsPacked = {Algorithm::kAllgatherAsPacked, Need,
                                                         Run};

}  // namespace colltune::shim
