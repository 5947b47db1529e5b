// MPI_Reduce_scatter(m) as MPI_Allreduce(m) of the whole vector into
// scratch; each rank copies its own block out (the irregular form of GL19).
//
// The vector is always reduced into scratch: with MPI_IN_PLACE the input is
// recvbuf, whose part past the first block must stay as the caller wrote it.
// MPI_Allreduce applies any operation in rank order. Scratch bound: the
// vector, and a packing area for the largest block of a non-dense type.
//
// Cost: MPI_Allreduce(m); scratch: m, + the largest block to pack a type that
//   is not dense.
#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"
#include "shim/coll/reduce_shape.h"

namespace colltune::shim {
namespace {

bool Sizes(const ReduceScatterCall& c, const CollEnv& env, VectorShape* s, Layout* l,
           uint64_t* vector, uint64_t* temp) {
  if (!ShapeOf(c, env.size, env.rank, s) || GetLayout(c.datatype, l) != MPI_SUCCESS) {
    return false;
  }
  *vector = l->Span(s->total);
  *temp = CopyTypedTemp(s->largest, *l);
  return true;
}

std::optional<uint64_t> Need(const ReduceScatterCall& c, const CollEnv& env) {
  VectorShape s;
  Layout l;
  uint64_t vector, temp;
  if (!Sizes(c, env, &s, &l, &vector, &temp)) return std::nullopt;
  return AlignUp(vector) + AlignUp(temp);
}

int Run(const ReduceScatterCall& c, const CollEnv& env) {
  VectorShape s;
  Layout l;
  uint64_t vector_bytes, temp_bytes;
  if (!Sizes(c, env, &s, &l, &vector_bytes, &temp_bytes)) return MPI_ERR_COUNT;
  ScratchPool::Lease lease =
      env.scratch->Acquire(AlignUp(vector_bytes) + AlignUp(temp_bytes));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  void* vector = l.Base(carve.Take(vector_bytes));
  void* temp = carve.Take(temp_bytes);
  const void* input = c.sendbuf == MPI_IN_PLACE ? c.recvbuf : c.sendbuf;
  int rc = PMPI_Allreduce(input, vector, static_cast<int>(s.total), c.datatype, c.op,
                          env.comm);
  if (rc != MPI_SUCCESS) return rc;
  return CopyTyped(l.At(static_cast<const void*>(vector), s.offset), c.recvbuf,
                   c.recvcounts[env.rank], c.datatype, l, temp);
}

}  // namespace

const AlgorithmImpl<ReduceScatterCall> kReducescatterAsAllreduce = {
    Algorithm::kReducescatterAsAllreduce, Need, Run};

}  // namespace colltune::shim
