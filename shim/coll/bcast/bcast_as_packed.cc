// Seed 003's GL2 for MPI_Bcast: MPI_Bcast of the packed data, described by
// its dense twin (shim/coll/dense_twin.h), packed at the root and unpacked
// elsewhere. Libraries move a derived datatype piece by piece or pipeline it
// through their own pack buffers; one pack, one contiguous broadcast and one
// unpack is faster for many layouts (seed 003 measures 2x and more for small
// blocks).
//
// The count, the type size and the signature stay those of the user's call,
// so every rank may take this path or not on its own: a rank whose type is
// dense (or has no twin) broadcasts from or into its buffer as it is.
//
// Cost: MPI_Bcast(n bytes) + a pack at the root and an unpack elsewhere;
//   scratch: n bytes where the type is not dense.
#include <climits>

#include "shim/coll/dense_twin.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const BcastCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!RootInRange(c.root, env) || bytes < 0 || bytes > INT_MAX) return std::nullopt;
  return AlignUp(static_cast<uint64_t>(bytes));
}

int Run(const BcastCall& c, const CollEnv& env) {
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  ScratchPool::Lease lease = env.scratch->Acquire(DenseViewBytes(c.count, l));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  const bool root = env.rank == c.root;
  DenseView v;
  if ((rc = ViewDense(c.buffer, c.count, c.datatype, l, env, root, carve, &v)) !=
      MPI_SUCCESS) {
    return rc;
  }
  rc = PMPI_Bcast(v.buf, v.count, v.type, c.root, env.comm);
  if (rc != MPI_SUCCESS || root || !v.staged) return rc;
  return UnpackBytes(v.buf, c.buffer, c.count, c.datatype, l);
}

}  // namespace

const AlgorithmImpl<BcastCall> kBcastAsPacked = {Algorithm::kBcastAsPacked, Need, Run};

}  // namespace colltune::shim
