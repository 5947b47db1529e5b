// Seed 003's GL2/GL3 for MPI_Scatter: MPI_Scatter of the packed blocks,
// described by their types' dense twins (shim/coll/dense_twin.h): the root
// packs the p blocks, each rank receives its block packed and unpacks it.
// Counts, type sizes and signatures stay the user's, so each rank takes this
// path on its own; a dense type (or one without a twin) is used as it is.
//
// Cost: MPI_Scatter(n bytes each) + a pack of p*n bytes at the root and an
//   unpack of n; scratch: p*n bytes at a root whose send type is not dense,
//   + n where the receive type is not.
#include "shim/coll/blocks.h"
#include "shim/coll/dense_twin.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ScatterCall& c, const CollEnv& env) {
  if (!RootedBlocksFit(c, env)) return std::nullopt;
  const int64_t bytes = c.KeyBytes(env);
  return AlignUp(static_cast<uint64_t>(bytes) * env.size) + AlignUp(bytes);
}

int Run(const ScatterCall& c, const CollEnv& env) {
  const bool root = env.rank == c.root;
  const bool in_place = root && c.recvbuf == MPI_IN_PLACE;
  const int64_t all = static_cast<int64_t>(c.sendcount) * env.size;
  Layout send, recv;
  int rc;
  if (root && (rc = GetLayout(c.sendtype, &send)) != MPI_SUCCESS) return rc;
  if (!in_place && (rc = GetLayout(c.recvtype, &recv)) != MPI_SUCCESS) return rc;
  ScratchPool::Lease lease =
      env.scratch->Acquire((root ? DenseViewBytes(all, send) : 0) +
                           (in_place ? 0 : DenseViewBytes(c.recvcount, recv)));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  // At an in-place root, its own block stays where it is in the send buffer.
  DenseView out{const_cast<void*>(c.sendbuf), c.sendcount, c.sendtype, false},
      in{MPI_IN_PLACE, 0, c.recvtype, false};
  rc = root ? ViewDenseBlocks(c.sendbuf, c.sendcount, env.size, c.sendtype, send, env, true,
                              carve, &out)
            : MPI_SUCCESS;
  if (rc == MPI_SUCCESS && !in_place) {
    rc = ViewDense(c.recvbuf, c.recvcount, c.recvtype, recv, env, false, carve, &in);
  }
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Scatter(out.buf, out.count, out.type, in.buf, in.count, in.type, c.root, env.comm);
  if (rc != MPI_SUCCESS || !in.staged) return rc;
  return UnpackBytes(in.buf, c.recvbuf, c.recvcount, c.recvtype, recv);
}

}  // namespace

const AlgorithmImpl<ScatterCall> kScatterAsPacked = {Algorithm::kScatterAsPacked, Need, Run};

}  // namespace colltune::shim
