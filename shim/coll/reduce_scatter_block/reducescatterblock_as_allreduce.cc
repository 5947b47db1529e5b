// GL19: MPI_Reduce_scatter_block(n) as MPI_Allreduce of the whole vector;
// each rank keeps its block.
//
// Out of place the vector is reduced into scratch and the block copied out;
// with MPI_IN_PLACE (on every rank, as MPI requires) the vector is reduced in
// recvbuf itself, whose elements past the first block MPI leaves undefined,
// and the block moved to the front.
#include "shim/coll/datatype.h"
#include "shim/coll/reduce_scatter_block/algorithms.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ReduceScatterBlockCall& c,
                             const CollEnv& env) {
  Layout l;
  const int64_t n = VectorCount(c, env.size);
  if (n < 0 || GetLayout(c.datatype, &l) != MPI_SUCCESS) return std::nullopt;
  const uint64_t temp = AlignUp(CopyTypedTemp(c.recvcount, l));
  return c.sendbuf == MPI_IN_PLACE ? temp : AlignUp(l.Span(n)) + temp;
}

int Run(const ReduceScatterBlockCall& c, const CollEnv& env) {
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  const int64_t n = VectorCount(c, env.size);
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  const uint64_t vector_bytes = in_place ? 0 : l.Span(n);
  const uint64_t temp_bytes = CopyTypedTemp(c.recvcount, l);
  ScratchPool::Lease lease =
      env.scratch->Acquire(AlignUp(vector_bytes) + AlignUp(temp_bytes));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  void* vector = in_place ? c.recvbuf : l.Base(carve.Take(vector_bytes));
  void* temp = carve.Take(temp_bytes);
  rc = PMPI_Allreduce(in_place ? MPI_IN_PLACE : c.sendbuf, vector,
                      static_cast<int>(n), c.datatype, c.op, env.comm);
  if (rc != MPI_SUCCESS) return rc;
  return CopyTyped(l.At(static_cast<const void*>(vector),
                        static_cast<int64_t>(env.rank) * c.recvcount),
                   c.recvbuf, c.recvcount, c.datatype, l, temp);
}

}  // namespace

const AlgorithmImpl<ReduceScatterBlockCall> kReducescatterblockAsAllreduce = {
    Algorithm::kReducescatterblockAsAllreduce, Need, Run};

}  // namespace colltune::shim
