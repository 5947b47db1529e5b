// GL14: MPI_Reduce(n) as MPI_Allreduce(n); the non-roots receive into scratch
// and drop the result.
//
// MPI_Allreduce defines MPI_IN_PLACE only when every rank passes it, while
// MPI_Reduce allows it at the root alone; so an in-place root copies its input
// to scratch and sends from there. Datatype and operation are the same on all
// ranks, so the scratch bound (one buffer of n elements, plus a packing area
// for non-dense types) is rank-invariant.
//
// Cost: MPI_Allreduce(n); scratch: n at non-roots (the dropped result) and
//   at an in-place root (a copy of its input, + n to pack a non-dense type).
#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ReduceCall& c, const CollEnv& env) {
  if (!RootInRange(c.root, env)) return std::nullopt;
  Layout l;
  if (c.count < 0 || GetLayout(c.datatype, &l) != MPI_SUCCESS) {
    return std::nullopt;
  }
  return AlignUp(l.Span(c.count)) + AlignUp(CopyTypedTemp(c.count, l));
}

int Run(const ReduceCall& c, const CollEnv& env) {
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  const uint64_t span = l.Span(c.count);
  if (env.rank != c.root) {
    ScratchPool::Lease lease = env.scratch->Acquire(span);
    if (!lease.ok()) return MPI_ERR_NO_MEM;
    return PMPI_Allreduce(c.sendbuf, l.Base(lease.data()), c.count, c.datatype,
                          c.op, env.comm);
  }
  if (c.sendbuf != MPI_IN_PLACE) {
    return PMPI_Allreduce(c.sendbuf, c.recvbuf, c.count, c.datatype, c.op,
                          env.comm);
  }
  const uint64_t temp_bytes = CopyTypedTemp(c.count, l);
  ScratchPool::Lease lease =
      env.scratch->Acquire(AlignUp(span) + AlignUp(temp_bytes));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  void* input = l.Base(carve.Take(span));
  void* temp = carve.Take(temp_bytes);
  rc = CopyTyped(c.recvbuf, input, c.count, c.datatype, l, temp);
  if (rc != MPI_SUCCESS) return rc;
  return PMPI_Allreduce(input, c.recvbuf, c.count, c.datatype, c.op, env.comm);
}

}  // namespace

const AlgorithmImpl<ReduceCall> kReduceAsAllreduce = {
    Algorithm::kReduceAsAllreduce, Need, Run};

}  // namespace colltune::shim
