// MPI_Exscan(n) as MPI_Allgather(n) of every rank's input into scratch, then
// rank r combines x_0 o ... o x_{r-1} itself with MPI_Reduce_local.
//
// One allgather (log p rounds in most libraries) replaces the libraries'
// linear exclusive scans, at the price of p*n elements of scratch and r-1
// local reductions on rank r: a candidate for small n on many ranks.
// MPI_Reduce_local(in, inout) computes inout = in o inout, so folding from
// x_{r-1} down to x_0 keeps rank order: non-commutative and user-defined
// operations are eligible. With MPI_IN_PLACE the input is recvbuf, which
// the allgather only reads. Rank 0's recvbuf, whose contents MPI leaves
// undefined, is never written. Scratch bound: p*n elements and a packing
// area for the final copy, the same on every rank.
//
// Cost: MPI_Allgather(n) + r-1 MPI_Reduce_local(n) on rank r; scratch: p*n,
//   + n to pack a type that is not dense.
#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ExscanCall& c, const CollEnv& env) {
  Layout l;
  if (c.count < 0 || GetLayout(c.datatype, &l) != MPI_SUCCESS) return std::nullopt;
  const int64_t all = static_cast<int64_t>(c.count) * env.size;
  return AlignUp(l.Span(all)) + AlignUp(CopyTypedTemp(c.count, l));
}

int Run(const ExscanCall& c, const CollEnv& env) {
  Layout l;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  const int64_t all = static_cast<int64_t>(c.count) * env.size;
  ScratchPool::Lease lease = env.scratch->Acquire(AlignUp(l.Span(all)) +
                                                  AlignUp(CopyTypedTemp(c.count, l)));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  void* inputs = l.Base(carve.Take(l.Span(all)));
  void* temp = carve.Take(CopyTypedTemp(c.count, l));
  const void* input = c.sendbuf == MPI_IN_PLACE ? c.recvbuf : c.sendbuf;
  rc = PMPI_Allgather(input, c.count, c.datatype, inputs, c.count, c.datatype, env.comm);
  if (rc != MPI_SUCCESS || env.rank == 0) return rc;
  // Rank j's input is block j; the prefix collects in block r-1.
  auto block = [&](int j) { return l.At(static_cast<char*>(inputs), int64_t{j} * c.count); };
  void* prefix = block(env.rank - 1);
  for (int j = env.rank - 2; j >= 0; --j) {
    rc = PMPI_Reduce_local(block(j), prefix, c.count, c.datatype, c.op);
    if (rc != MPI_SUCCESS) return rc;
  }
  return CopyTyped(prefix, c.recvbuf, c.count, c.datatype, l, temp);
}

}  // namespace

const AlgorithmImpl<ExscanCall> kExscanAsAllgatherReducelocal = {
    Algorithm::kExscanAsAllgatherReducelocal, Need, Run};

}  // namespace colltune::shim
