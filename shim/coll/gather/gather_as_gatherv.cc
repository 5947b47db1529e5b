// GL12: MPI_Gather(n) as MPI_Gatherv with p equal counts.
//
// Only the root builds the count and displacement arrays (2p ints); the other
// ranks pass their arguments through unchanged, and MPI_IN_PLACE at the root
// keeps its meaning in MPI_Gatherv. Displacements are ints, so the call is
// eligible only while p times the message size fits in an int: a bound every
// rank computes from the same numbers.
#include <climits>

#include "shim/coll/gather/algorithms.h"
#include "shim/coll/datatype.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const GatherCall& c, const CollEnv& env) {
  if (!RootInRange(c.root, env)) return std::nullopt;
  const int64_t bytes = c.KeyBytes(env.rank);
  if (bytes < 0 || bytes * env.size > INT_MAX) return std::nullopt;
  return AlignUp(2 * sizeof(int) * static_cast<uint64_t>(env.size));
}

int Run(const GatherCall& c, const CollEnv& env) {
  if (env.rank != c.root) {
    return PMPI_Gatherv(c.sendbuf, c.sendcount, c.sendtype, nullptr, nullptr,
                        nullptr, c.recvtype, c.root, env.comm);
  }
  ScratchPool::Lease lease =
      env.scratch->Acquire(2 * sizeof(int) * static_cast<uint64_t>(env.size));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  int* counts = static_cast<int*>(lease.data());
  int* displs = counts + env.size;
  for (int i = 0; i < env.size; ++i) {
    counts[i] = c.recvcount;
    // Only a zero-size type can overflow here (Need bounded p*bytes), and it
    // moves no data, so any displacement is right.
    const int64_t d = static_cast<int64_t>(i) * c.recvcount;
    displs[i] = d <= INT_MAX ? static_cast<int>(d) : 0;
  }
  return PMPI_Gatherv(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, counts,
                      displs, c.recvtype, c.root, env.comm);
}

}  // namespace

const AlgorithmImpl<GatherCall> kGatherAsGatherv = {Algorithm::kGatherAsGatherv,
                                                    Need, Run};

}  // namespace colltune::shim
