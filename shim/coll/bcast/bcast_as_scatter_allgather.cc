// GL10: MPI_Bcast(n) as MPI_Scatter of p blocks, then MPI_Allgather (van de
// Geijn's broadcast).
//
// MPI_Bcast lets every rank describe the data with its own datatype and count
// as long as the type signatures match, so blocks are cut in bytes of the
// packed data, the one measure all ranks share: ceil(N/p) bytes each for N =
// count * MPI_Type_size. A rank whose datatype is dense and whose N is a
// multiple of p scatters and gathers in its own buffer, with no copy; any
// other rank works in a scratch buffer of p blocks, packing (root) or
// unpacking (others) around the collectives. Which ranks copy can differ, the
// messages exchanged cannot. Every rank ends with the root's bytes.
//
// Cost: MPI_Scatter(ceil(n/p) bytes each) + MPI_Allgather(ceil(n/p) each);
//   scratch: p*ceil(n/p) bytes (none if the type is dense and p divides n).
#include <climits>
#include <cstring>

#include "shim/coll/mockups.h"
#include "shim/coll/datatype.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const BcastCall& c, const CollEnv& env) {
  if (!RootInRange(c.root, env)) return std::nullopt;
  const int64_t bytes = c.KeyBytes(env);
  if (bytes < 0) return std::nullopt;
  const int64_t block = (bytes + env.size - 1) / env.size;
  if (block > INT_MAX) return std::nullopt;
  // Some rank may need the whole padded buffer.
  return AlignUp(static_cast<uint64_t>(block) * env.size);
}

int Run(const BcastCall& c, const CollEnv& env) {
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  const int64_t bytes = c.KeyBytes(env);
  const int64_t p = env.size;
  const int64_t block = (bytes + p - 1) / p;
  const bool is_root = env.rank == c.root;
  const bool direct = l.dense && bytes % p == 0;

  ScratchPool::Lease lease = env.scratch->Acquire(direct ? 0 : block * p);
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  char* work = direct ? static_cast<char*>(c.buffer)
                      : static_cast<char*>(lease.data());
  if (!direct && is_root) {
    rc = PackBytes(c.buffer, c.count, c.datatype, l, work);
    if (rc != MPI_SUCCESS) return rc;
    memset(work + bytes, 0, static_cast<size_t>(block * p - bytes));
  }
  const int b = static_cast<int>(block);
  rc = PMPI_Scatter(work, b, MPI_BYTE,
                    is_root ? MPI_IN_PLACE : work + env.rank * block, b,
                    MPI_BYTE, c.root, env.comm);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Allgather(MPI_IN_PLACE, b, MPI_BYTE, work, b, MPI_BYTE, env.comm);
  if (rc != MPI_SUCCESS) return rc;
  if (!direct && !is_root) {
    return UnpackBytes(work, c.buffer, c.count, c.datatype, l);
  }
  return MPI_SUCCESS;
}

}  // namespace

const AlgorithmImpl<BcastCall> kBcastAsScatterAllgather = {
    Algorithm::kBcastAsScatterAllgather, Need, Run};

}  // namespace colltune::shim
