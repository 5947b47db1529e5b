// Seed 003's GL2/GL3 for MPI_Gather: MPI_Gather of the packed blocks,
// described by their types' dense twins (shim/coll/dense_twin.h): each rank
// packs its block, the root receives the p blocks packed and unpacks them.
// Counts, type sizes and signatures stay the user's, so each rank takes this
// path on its own; a dense type (or one without a twin) is used as it is.
//
// Cost: MPI_Gather(n bytes each) + a pack of n, and at the root an unpack of
//   p*n bytes; scratch: p*n bytes at a root whose receive type is not dense,
//   + n where the send type is not.
#include "shim/coll/blocks.h"
#include "shim/coll/dense_twin.h"
#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const GatherCall& c, const CollEnv& env) {
  if (!RootedBlocksFit(c, env)) return std::nullopt;
  const int64_t bytes = c.KeyBytes(env);
  return AlignUp(static_cast<uint64_t>(bytes) * env.size) + AlignUp(bytes);
}

int Run(const GatherCall& c, const CollEnv& env) {
  const bool root = env.rank == c.root;
  const bool in_place = root && c.sendbuf == MPI_IN_PLACE;
  const int64_t all = static_cast<int64_t>(c.recvcount) * env.size;
  Layout recv, send;
  int rc;
  if (root && (rc = GetLayout(c.recvtype, &recv)) != MPI_SUCCESS) return rc;
  if (!in_place && (rc = GetLayout(c.sendtype, &send)) != MPI_SUCCESS) return rc;
  ScratchPool::Lease lease =
      env.scratch->Acquire((root ? DenseViewBytes(all, recv) : 0) +
                           (in_place ? 0 : DenseViewBytes(c.sendcount, send)));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  DenseView in{c.recvbuf, c.recvcount, c.recvtype, false};
  DenseView out{MPI_IN_PLACE, 0, c.sendtype, false};
  rc = root ? ViewDenseBlocks(c.recvbuf, c.recvcount, env.size, c.recvtype, recv, env, false,
                              carve, &in)
            : MPI_SUCCESS;
  if (rc == MPI_SUCCESS && in_place && in.staged) {
    rc = PackBlock(OwnBlock(c, env.rank), static_cast<char*>(in.buf) +
                                              env.rank * c.recvcount * recv.size);
  } else if (rc == MPI_SUCCESS && !in_place) {
    rc = ViewDense(c.sendbuf, c.sendcount, c.sendtype, send, env, true, carve, &out);
  }
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Gather(out.buf, out.count, out.type, in.buf, in.count, in.type, c.root, env.comm);
  if (rc != MPI_SUCCESS || !in.staged) return rc;
  return UnpackGathered(in.buf, c, env.size, recv);
}

}  // namespace

const AlgorithmImpl<GatherCall> kGatherAsPacked = {Algorithm::kGatherAsPacked, Need, Run};

}  // namespace colltune::shim
