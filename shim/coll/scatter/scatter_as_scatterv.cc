// GL22: MPI_Scatter(n) as MPI_Scatterv with p equal counts.
//
// The mirror of gather_as_gatherv: the root builds 2p ints, the other ranks
// pass their arguments through, MPI_IN_PLACE at the root keeps its meaning,
// and the call is eligible while p times the message size fits in an int.
#include <climits>

#include "shim/coll/datatype.h"
#include "shim/coll/scatter/algorithms.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ScatterCall& c, const CollEnv& env) {
  if (!RootInRange(c.root, env)) return std::nullopt;
  const int64_t bytes = c.KeyBytes(env.rank);
  if (bytes < 0 || bytes * env.size > INT_MAX) return std::nullopt;
  return AlignUp(2 * sizeof(int) * static_cast<uint64_t>(env.size));
}

int Run(const ScatterCall& c, const CollEnv& env) {
  if (env.rank != c.root) {
    return PMPI_Scatterv(nullptr, nullptr, nullptr, c.sendtype, c.recvbuf,
                         c.recvcount, c.recvtype, c.root, env.comm);
  }
  ScratchPool::Lease lease =
      env.scratch->Acquire(2 * sizeof(int) * static_cast<uint64_t>(env.size));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  int* counts = static_cast<int*>(lease.data());
  int* displs = counts + env.size;
  for (int i = 0; i < env.size; ++i) {
    counts[i] = c.sendcount;
    const int64_t d = static_cast<int64_t>(i) * c.sendcount;
    displs[i] = d <= INT_MAX ? static_cast<int>(d) : 0;
  }
  return PMPI_Scatterv(c.sendbuf, counts, displs, c.sendtype, c.recvbuf,
                       c.recvcount, c.recvtype, c.root, env.comm);
}

}  // namespace

const AlgorithmImpl<ScatterCall> kScatterAsScatterv = {
    Algorithm::kScatterAsScatterv, Need, Run};

}  // namespace colltune::shim
