// GL19: MPI_Reduce_scatter_block(n) as MPI_Allreduce of the whole vector
// (p*n elements) into scratch; each rank copies its block out.
//
// With MPI_IN_PLACE the input is the whole of recvbuf, but only its first
// block is the result: Open MPI and MPICH leave the rest as the caller wrote
// it, and so must a mock-up. So the vector is always reduced into scratch
// (recvbuf is then the send buffer, never aliased with the result) and only
// the own block is written back. Scratch bound, the same on every rank: the
// vector and a packing area for one block of a non-dense type.
//
// Cost: MPI_Allreduce(p*n); scratch: p*n, + n to pack a type that is not
//   dense.
#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"
#include "shim/coll/reduce_shape.h"

namespace colltune::shim {
namespace {

struct Sizes {
  uint64_t vector = 0, temp = 0;
};

bool SizesOf(const ReduceScatterBlockCall& c, const CollEnv& env, Layout* l,
             Sizes* s) {
  const int64_t n = VectorCount(c, env.size);
  if (n < 0 || GetLayout(c.datatype, l) != MPI_SUCCESS) return false;
  s->vector = l->Span(n);
  s->temp = CopyTypedTemp(c.recvcount, *l);
  return true;
}

std::optional<uint64_t> Need(const ReduceScatterBlockCall& c,
                             const CollEnv& env) {
  Layout l;
  Sizes s;
  if (!SizesOf(c, env, &l, &s)) return std::nullopt;
  return AlignUp(s.vector) + AlignUp(s.temp);
}

int Run(const ReduceScatterBlockCall& c, const CollEnv& env) {
  Layout l;
  Sizes s;
  if (!SizesOf(c, env, &l, &s)) return MPI_ERR_TYPE;
  ScratchPool::Lease lease = env.scratch->Acquire(AlignUp(s.vector) + AlignUp(s.temp));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  void* vector = l.Base(carve.Take(s.vector));
  void* temp = carve.Take(s.temp);
  const void* input = c.sendbuf == MPI_IN_PLACE ? c.recvbuf : c.sendbuf;
  int rc = PMPI_Allreduce(input, vector, static_cast<int>(VectorCount(c, env.size)),
                          c.datatype, c.op, env.comm);
  if (rc != MPI_SUCCESS) return rc;
  return CopyTyped(l.At(static_cast<const void*>(vector),
                        static_cast<int64_t>(env.rank) * c.recvcount),
                   c.recvbuf, c.recvcount, c.datatype, l, temp);
}

}  // namespace

const AlgorithmImpl<ReduceScatterBlockCall> kReducescatterblockAsAllreduce = {
    Algorithm::kReducescatterblockAsAllreduce, Need, Run};

}  // namespace colltune::shim
