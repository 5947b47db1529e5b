// GL18: MPI_Reduce_scatter_block(n) as MPI_Reduce_scatter with p equal
// counts (p ints).
//
// Out of place the call maps one to one. In place it does not: Open MPI
// 4.1's in-place MPI_Reduce_scatter writes past the first block of rank 0's
// recvbuf for small messages, where its MPI_Reduce_scatter_block (and
// MPICH's) leave the rest of the buffer as the caller wrote it. So an
// in-place call reduces from recvbuf into one block of scratch and copies it
// to the front of recvbuf; a mock-up writes no byte that the library's own
// collective leaves untouched. Scratch bound: p ints, one block and a
// packing area for a non-dense type.
//
// Cost: MPI_Reduce_scatter(p counts of n); scratch: p ints, in place + n
//   (+ n to pack a type that is not dense).
#include "shim/coll/blocks.h"
#include "shim/coll/mockups.h"
#include "shim/coll/reduce_shape.h"

namespace colltune::shim {
namespace {

struct Sizes {
  uint64_t block = 0, temp = 0;
};

bool SizesOf(const ReduceScatterBlockCall& c, const CollEnv& env, Layout* l,
             Sizes* s) {
  if (VectorCount(c, env.size) < 0 || GetLayout(c.datatype, l) != MPI_SUCCESS) {
    return false;
  }
  if (c.sendbuf == MPI_IN_PLACE) {
    s->block = l->Span(c.recvcount);
    s->temp = CopyTypedTemp(c.recvcount, *l);
  }
  return true;
}

uint64_t ScratchBytes(const CollEnv& env, const Sizes& s, bool in_place) {
  return IntArraysBytes(env.size, 1) +
         (in_place ? AlignUp(s.block) + AlignUp(s.temp) : 0);
}

std::optional<uint64_t> Need(const ReduceScatterBlockCall& c,
                             const CollEnv& env) {
  Layout l;
  Sizes s;
  if (!SizesOf(c, env, &l, &s)) return std::nullopt;
  return ScratchBytes(env, s, c.sendbuf == MPI_IN_PLACE);
}

int Run(const ReduceScatterBlockCall& c, const CollEnv& env) {
  Layout l;
  Sizes s;
  if (!SizesOf(c, env, &l, &s)) return MPI_ERR_TYPE;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  ScratchPool::Lease lease = env.scratch->Acquire(ScratchBytes(env, s, in_place));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  int* counts = TakeInts(carve, env.size);
  for (int i = 0; i < env.size; ++i) counts[i] = c.recvcount;
  if (!in_place) {
    return PMPI_Reduce_scatter(c.sendbuf, c.recvbuf, counts, c.datatype, c.op,
                               env.comm);
  }
  void* block = l.Base(carve.Take(s.block));
  void* temp = carve.Take(s.temp);
  int rc = PMPI_Reduce_scatter(c.recvbuf, block, counts, c.datatype, c.op, env.comm);
  if (rc != MPI_SUCCESS) return rc;
  return CopyTyped(block, c.recvbuf, c.recvcount, c.datatype, l, temp);
}

}  // namespace

const AlgorithmImpl<ReduceScatterBlockCall> kReducescatterblockAsReducescatter = {
    Algorithm::kReducescatterblockAsReducescatter, Need, Run};

}  // namespace colltune::shim
