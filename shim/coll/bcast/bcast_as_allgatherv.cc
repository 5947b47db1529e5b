// GL9: MPI_Bcast(n) as MPI_Allgatherv in place, where the root's block holds
// the n bytes of data and every other block is empty.
//
// The exchange is of packed bytes (MPI_BYTE): ranks may describe the data
// with different datatypes, and MPICH 4.0's MPI_Allgatherv truncates messages
// between such ranks. Every displacement is 0. A rank whose type is dense
// works in its buffer; others stage n bytes in scratch (the root packs into
// it first). Scratch bound: n bytes and 2p ints.
//
// Cost: MPI_Allgatherv(n bytes from the root, empty blocks elsewhere);
//   scratch: 2p ints, + n bytes when the type is not dense.
#include "shim/coll/mockups.h"
#include "shim/coll/blocks.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const BcastCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!RootInRange(c.root, env) || bytes < 0 || bytes > INT_MAX) {
    return std::nullopt;
  }
  return IntArraysBytes(env.size, 2) + AlignUp(static_cast<uint64_t>(bytes));
}

int Run(const BcastCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  ScratchPool::Lease lease = env.scratch->Acquire(
      IntArraysBytes(env.size, 2) + (l.dense ? 0 : AlignUp(bytes)));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  int* counts = TakeInts(carve, env.size);
  int* displs = TakeInts(carve, env.size);
  for (int i = 0; i < env.size; ++i) {
    counts[i] = i == c.root ? static_cast<int>(bytes) : 0;
    displs[i] = 0;
  }
  void* data = l.dense ? c.buffer : carve.Take(bytes);
  if (!l.dense && env.rank == c.root &&
      (rc = PackBytes(c.buffer, c.count, c.datatype, l, data)) != MPI_SUCCESS) {
    return rc;
  }
  rc = PMPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, data, counts, displs,
                       MPI_BYTE, env.comm);
  if (rc != MPI_SUCCESS || l.dense || env.rank == c.root) return rc;
  return UnpackBytes(data, c.buffer, c.count, c.datatype, l);
}

}  // namespace

const AlgorithmImpl<BcastCall> kBcastAsAllgatherv = {Algorithm::kBcastAsAllgatherv,
                                                     Need, Run};

}  // namespace colltune::shim
