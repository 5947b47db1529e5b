// Seed 000's guideline 2 for Allgatherv: MPI_Allgatherv(m) as MPI_Allgather
// of p blocks padded to the largest one, then each block copied to its
// displacement.
//
// Unlike Gatherv, every rank holds all counts, so the padded size is known
// without the guideline's MPI_Allreduce: the largest count times
// MPI_Type_size (rank-invariant by the type-signature rule). Blocks travel
// as packed bytes (MPI_BYTE), since ranks may describe them with different
// datatypes: each rank packs its block into its slot of a p-slot scratch
// buffer, the slots are gathered in place, and every slot is unpacked into
// recvbuf with the receive type (with MPI_IN_PLACE the own block is already
// there and is not rewritten). Padding bytes travel but are never unpacked.
// Scratch bound: p times the largest block. Not eligible when that exceeds
// int counts.
//
// Cost: MPI_Allgather(b bytes per rank, b the largest block: p*b >= m);
//   scratch: p*b bytes.
#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"
#include "shim/coll/blocks.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AllgathervCall& c, const CollEnv& env) {
  const int64_t largest = LargestBlockBytes(c, env.size);
  if (!FitsIntBlocks(largest, env.size)) return std::nullopt;
  return AlignUp(static_cast<uint64_t>(largest) * env.size);
}

int Run(const AllgathervCall& c, const CollEnv& env) {
  const int64_t padded = LargestBlockBytes(c, env.size);
  Layout recv;
  int rc = GetLayout(c.recvtype, &recv);
  if (rc != MPI_SUCCESS) return rc;
  ScratchPool::Lease lease =
      env.scratch->Acquire(AlignUp(static_cast<uint64_t>(padded) * env.size));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  char* slots = static_cast<char*>(lease.data());
  rc = PackBlock(OwnBlock(c, env.rank), slots + env.rank * padded);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Allgather(MPI_IN_PLACE, static_cast<int>(padded), MPI_BYTE, slots,
                      static_cast<int>(padded), MPI_BYTE, env.comm);
  if (rc != MPI_SUCCESS) return rc;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  for (int k = 0; k < env.size; ++k) {
    if (k == env.rank && in_place) continue;
    rc = UnpackBytes(slots + k * padded, recv.At(c.recvbuf, c.displs[k]),
                     c.recvcounts[k], c.recvtype, recv);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace

const AlgorithmImpl<AllgathervCall> kAllgathervAsAllgatherPadded = {
    Algorithm::kAllgathervAsAllgatherPadded, Need, Run};

}  // namespace colltune::shim
