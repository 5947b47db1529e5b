// MPI_Reduce_scatter(m) as MPI_Reduce(m) of the whole vector to rank 0,
// then MPI_Scatterv(m) of the blocks (the irregular form of GL17).
//
// Rank 0 reduces into scratch, never into a user buffer: with MPI_IN_PLACE
// the input is recvbuf, of which only the first block is the result (the
// rest stays as the caller wrote it). The scatter then writes each rank's
// block to the front of its recvbuf. MPI_Reduce applies any operation in
// rank order, so user-defined and non-commutative ones are eligible.
// Scratch bound (rank 0's, for every rank): the vector and p displacements.
//
// Cost: MPI_Reduce(m) to rank 0 + MPI_Scatterv(m, each rank its block);
//   scratch: m + p ints at rank 0, none elsewhere.
#include "shim/coll/blocks.h"
#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"
#include "shim/coll/reduce_shape.h"

namespace colltune::shim {
namespace {

constexpr int kRoot = 0;

std::optional<uint64_t> Need(const ReduceScatterCall& c, const CollEnv& env) {
  VectorShape s;
  Layout l;
  if (!ShapeOf(c, env.size, env.rank, &s) || GetLayout(c.datatype, &l) != MPI_SUCCESS) {
    return std::nullopt;
  }
  return AlignUp(l.Span(s.total)) + IntArraysBytes(env.size, 1);
}

int Run(const ReduceScatterCall& c, const CollEnv& env) {
  VectorShape s;
  Layout l;
  if (!ShapeOf(c, env.size, env.rank, &s)) return MPI_ERR_COUNT;
  int rc = GetLayout(c.datatype, &l);
  if (rc != MPI_SUCCESS) return rc;
  const bool root = env.rank == kRoot;
  ScratchPool::Lease lease = env.scratch->Acquire(
      root ? AlignUp(l.Span(s.total)) + IntArraysBytes(env.size, 1) : 0);
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  void* vector = nullptr;
  int* displs = nullptr;
  if (root) {
    Carver carve(lease.data());
    vector = l.Base(carve.Take(l.Span(s.total)));
    displs = TakeInts(carve, env.size);
    int offset = 0;
    for (int i = 0; i < env.size; ++i) {
      displs[i] = offset;
      offset += c.recvcounts[i];
    }
  }
  const void* input = c.sendbuf == MPI_IN_PLACE ? c.recvbuf : c.sendbuf;
  rc = PMPI_Reduce(input, vector, static_cast<int>(s.total), c.datatype, c.op, kRoot,
                   env.comm);
  if (rc != MPI_SUCCESS) return rc;
  const int mine = c.recvcounts[env.rank];
  return PMPI_Scatterv(vector, c.recvcounts, displs, c.datatype,
                       mine > 0 ? c.recvbuf : EmptyBlockAddress(), mine, c.datatype,
                       kRoot, env.comm);
}

}  // namespace

const AlgorithmImpl<ReduceScatterCall> kReducescatterAsReduceScatterv = {
    Algorithm::kReducescatterAsReduceScatterv, Need, Run};

}  // namespace colltune::shim
