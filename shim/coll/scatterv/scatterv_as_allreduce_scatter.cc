// Seed 000's guideline 2 for MPI_Scatterv: MPI_Allreduce(1) of the largest
// block, the root packs every block padded to it, MPI_Scatter of the padded
// blocks, each rank keeps its own block's bytes. As for
// gatherv_as_allreduce_gather, the budget check follows the MPI_Allreduce
// and is the same on every rank.
//
// Cost: MPI_Allreduce(1 int64) + MPI_Scatter(b bytes each, b the largest
//   block), or the library's MPI_Scatterv when p*b exceeds the budget;
//   scratch: p*b bytes at the root, b elsewhere (checked after the Allreduce).
#include <climits>

#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ScattervCall& c, const CollEnv& env) {
  if (!RootInRange(c.root, env)) return std::nullopt;
  return 0;  // checked against the budget once the padded size is known
}

int Run(const ScattervCall& c, const CollEnv& env) {
  int64_t largest = 0;
  int rc = LargestOwnBytes(c, env, &largest);
  if (rc != MPI_SUCCESS) return rc;
  const uint64_t all = static_cast<uint64_t>(largest) * env.size;
  if (largest > INT_MAX / env.size || all > env.mem_budget) return c.Native(env.comm);
  const bool root = env.rank == c.root;
  ScratchPool::Lease lease = env.scratch->Acquire(root ? all : static_cast<uint64_t>(largest));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  char* bytes = static_cast<char*>(lease.data());
  const int padded = static_cast<int>(largest);
  const Block own = OwnBlock(c, env.rank);
  if (!root) {
    rc = PMPI_Scatter(nullptr, 0, MPI_BYTE, bytes, padded, MPI_BYTE, c.root, env.comm);
    if (rc != MPI_SUCCESS) return rc;
    Layout layout;
    rc = GetLayout(own.type, &layout);
    if (rc != MPI_SUCCESS) return rc;
    return UnpackBytes(bytes, const_cast<void*>(own.buf), own.count, own.type, layout);
  }
  Layout layout;
  rc = GetLayout(c.sendtype, &layout);
  if (rc != MPI_SUCCESS) return rc;
  for (int k = 0; k < env.size; ++k) {
    if (k == c.root) continue;
    const char* src =
        static_cast<const char*>(c.sendbuf) + static_cast<int64_t>(c.displs[k]) * layout.extent;
    rc = PackBytes(src, c.sendcounts[k], c.sendtype, layout,
                   bytes + static_cast<int64_t>(k) * padded);
    if (rc != MPI_SUCCESS) return rc;
  }
  rc = PMPI_Scatter(bytes, padded, MPI_BYTE, MPI_IN_PLACE, padded, MPI_BYTE, c.root,
                    env.comm);
  if (rc != MPI_SUCCESS || own.buf == nullptr) return rc;
  // The root's own block, from its send buffer to its receive buffer.
  const char* src = static_cast<const char*>(c.sendbuf) +
                    static_cast<int64_t>(c.displs[c.root]) * layout.extent;
  rc = PackBytes(src, c.sendcounts[c.root], c.sendtype, layout,
                 bytes + static_cast<int64_t>(c.root) * padded);
  if (rc != MPI_SUCCESS) return rc;
  Layout own_layout;
  rc = GetLayout(own.type, &own_layout);
  if (rc != MPI_SUCCESS) return rc;
  return UnpackBytes(bytes + static_cast<int64_t>(c.root) * padded,
                     const_cast<void*>(own.buf), own.count, own.type, own_layout);
}

}  // namespace

const AlgorithmImpl<ScattervCall> kScattervAsAllreduceScatter = {
    Algorithm::kScattervAsAllreduceScatter, Need, Run};

}  // namespace colltune::shim
