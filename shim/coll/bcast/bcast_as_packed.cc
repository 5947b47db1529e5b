// Seed 003's GL2 for MPI_Bcast: the broadcast of (count, datatype) as
// MPI_Bcast of its packed bytes (MPI_BYTE), packed at the root and unpacked
// elsewhere. Libraries move a derived datatype piece by piece, or pipeline
// its segments through their own pack buffers; one pack, one contiguous
// broadcast and one unpack is faster for many layouts (seed 003 measures 2x
// and more for small blocks).
//
// Every rank broadcasts n = count * MPI_Type_size bytes whatever its own
// datatype (only type signatures match across ranks), so the path is the
// same on every rank. A rank whose type is dense broadcasts from or into its
// buffer directly.
//
// Cost: MPI_Bcast(n bytes) + a pack at the root and an unpack elsewhere;
//   scratch: n bytes when the type is not dense.
#include <climits>

#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const BcastCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!RootInRange(c.root, env) || bytes < 0 || bytes > INT_MAX) return std::nullopt;
  return AlignUp(static_cast<uint64_t>(bytes));
}

int Run(const BcastCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  if (l.dense) return PMPI_Bcast(c.buffer, static_cast<int>(bytes), MPI_BYTE, c.root, env.comm);
  ScratchPool::Lease lease = env.scratch->Acquire(AlignUp(bytes));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  void* packed = lease.data();
  const bool root = env.rank == c.root;
  if (root && (rc = PackBytes(c.buffer, c.count, c.datatype, l, packed)) != MPI_SUCCESS) {
    return rc;
  }
  rc = PMPI_Bcast(packed, static_cast<int>(bytes), MPI_BYTE, c.root, env.comm);
  if (rc != MPI_SUCCESS || root) return rc;
  return UnpackBytes(packed, c.buffer, c.count, c.datatype, l);
}

}  // namespace

const AlgorithmImpl<BcastCall> kBcastAsPacked = {Algorithm::kBcastAsPacked, Need, Run};

}  // namespace colltune::shim
