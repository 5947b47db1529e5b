// GL17: MPI_Reduce_scatter_block(n) as MPI_Reduce of the whole vector (p*n
// elements) to rank 0, then MPI_Scatter of the blocks.
//
// Rank 0 needs the reduced vector in scratch (the bound for every rank);
// with MPI_IN_PLACE the input is read from recvbuf, whose first block the
// scatter then overwrites (the rest stays as the caller wrote it, as the
// libraries leave it). MPI_Reduce applies any operation in rank order. Not
// eligible under MPICH for datatypes with gaps (quirks.h); the datatype is
// the same on all ranks, so neither is the verdict.
//
// Cost: MPI_Reduce(p*n) to rank 0 + MPI_Scatter(n each); scratch: p*n at
//   rank 0, none elsewhere.
#include "shim/coll/datatype.h"
#include "shim/coll/quirks.h"
#include "shim/coll/mockups.h"
#include "shim/coll/reduce_shape.h"

namespace colltune::shim {
namespace {

constexpr int kRoot = 0;

std::optional<uint64_t> Need(const ReduceScatterBlockCall& c,
                             const CollEnv& env) {
  Layout l;
  const int64_t n = VectorCount(c, env.size);
  if (n < 0 || GetLayout(c.datatype, &l) != MPI_SUCCESS) return std::nullopt;
  if (!GatherScatterSafe(l)) return std::nullopt;
  return AlignUp(l.Span(n));
}

int Run(const ReduceScatterBlockCall& c, const CollEnv& env) {
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  const int64_t n = VectorCount(c, env.size);
  const bool is_root = env.rank == kRoot;
  ScratchPool::Lease lease = env.scratch->Acquire(is_root ? l.Span(n) : 0);
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  void* vector = is_root ? l.Base(lease.data()) : nullptr;
  const void* input = c.sendbuf == MPI_IN_PLACE ? c.recvbuf : c.sendbuf;
  rc = PMPI_Reduce(input, vector, static_cast<int>(n), c.datatype, c.op, kRoot,
                   env.comm);
  if (rc != MPI_SUCCESS) return rc;
  return PMPI_Scatter(vector, c.recvcount, c.datatype, c.recvbuf, c.recvcount,
                      c.datatype, kRoot, env.comm);
}

}  // namespace

const AlgorithmImpl<ReduceScatterBlockCall> kReducescatterblockAsReduceScatter = {
    Algorithm::kReducescatterblockAsReduceScatter, Need, Run};

}  // namespace colltune::shim
