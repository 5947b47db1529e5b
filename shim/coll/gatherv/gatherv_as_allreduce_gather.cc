// Seed 000's guideline 2 as an algorithm: MPI_Gatherv(m) as MPI_Allreduce(1)
// of the largest block, then MPI_Gather of blocks padded to it, then each
// block put in its place at the root.
//
// The padded size is known only after the MPI_Allreduce, and it is the same
// on every rank: so is the verdict that p padded blocks fit the scratch
// budget (and int counts); when they do not, every rank runs the library's
// MPI_Gatherv instead.
//
// Cost: MPI_Allreduce(1 int64) + MPI_Gather(b bytes each, b the largest
//   block), or the library's MPI_Gatherv when p*b exceeds the budget;
//   scratch: p*b bytes at the root, b elsewhere (checked after the Allreduce).
#include <climits>

#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const GathervCall& c, const CollEnv& env) {
  if (!RootInRange(c.root, env)) return std::nullopt;
  return 0;  // checked against the budget once the padded size is known
}

int Run(const GathervCall& c, const CollEnv& env) {
  int64_t largest = 0;
  int rc = LargestOwnBytes(c, env, &largest);
  if (rc != MPI_SUCCESS) return rc;
  const bool root = env.rank == c.root;
  // The root holds p padded blocks; others one. The bound all ranks check is
  // the root's, so that they all decide alike.
  const uint64_t all = static_cast<uint64_t>(largest) * env.size;
  if (largest > INT_MAX / env.size || all > env.mem_budget) return c.Native(env.comm);
  ScratchPool::Lease lease = env.scratch->Acquire(root ? all : static_cast<uint64_t>(largest));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  char* bytes = static_cast<char*>(lease.data());
  const int padded = static_cast<int>(largest);
  if (!root) {
    rc = PackBlock(OwnBlock(c, env.rank), bytes);
    if (rc != MPI_SUCCESS) return rc;
    return PMPI_Gather(bytes, padded, MPI_BYTE, nullptr, 0, MPI_BYTE, c.root, env.comm);
  }
  // The root's own block lands in its slot too (or is already in place).
  const Block own = OwnBlock(c, env.rank);
  if (own.buf != nullptr) {
    rc = PackBlock(own, bytes + static_cast<int64_t>(c.root) * padded);
    if (rc != MPI_SUCCESS) return rc;
  }
  rc = PMPI_Gather(MPI_IN_PLACE, padded, MPI_BYTE, bytes, padded, MPI_BYTE, c.root,
                   env.comm);
  if (rc != MPI_SUCCESS) return rc;
  Layout layout;
  rc = GetLayout(c.recvtype, &layout);
  if (rc != MPI_SUCCESS) return rc;
  for (int k = 0; k < env.size; ++k) {
    if (k == c.root && own.buf == nullptr) continue;
    char* dst = static_cast<char*>(c.recvbuf) + static_cast<int64_t>(c.displs[k]) * layout.extent;
    rc = UnpackBytes(bytes + static_cast<int64_t>(k) * padded, dst, c.recvcounts[k],
                     c.recvtype, layout);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace

const AlgorithmImpl<GathervCall> kGathervAsAllreduceGather = {
    Algorithm::kGathervAsAllreduceGather, Need, Run};

}  // namespace colltune::shim
