// Seed 000's guideline 2 for Reduce_scatter: MPI_Reduce_scatter(m) as
// MPI_Reduce_scatter_block of p blocks padded to the largest count.
//
// Every rank holds all counts, so the padded block (the largest count) is
// known without communication. The input is copied block by block into a
// zero-padded layout of p equal blocks in scratch; the padding's results
// are computed and dropped. Padding is legitimate for predefined operations
// only (a user function must never see elements the program did not
// produce), so with a user-defined operation the mock-up is eligible only
// when all counts are equal and nothing is padded; then the input is reduced
// where it lies. MPI_Reduce_scatter_block applies any operation in rank
// order. The library's in-place Reduce_scatter_block may write past the
// first block (MPICH does), so the inner call is never in place: with
// MPI_IN_PLACE the result lands in scratch, unless the input was copied to
// the padded layout anyway, and only the own block is written to recvbuf.
// Scratch bound: p padded blocks, one block and a packing area for one
// block of a non-dense type. Not eligible when p padded blocks exceed int
// counts.
//
// Cost: MPI_Reduce_scatter_block(p blocks of b, b the largest count);
//   scratch: b, + b to pack a non-dense type, + p*b when counts differ.
#include <climits>
#include <cstring>

#include "shim/coll/datatype.h"
#include "shim/coll/mockups.h"
#include "shim/coll/reduce_shape.h"

namespace colltune::shim {
namespace {

struct Plan {
  VectorShape shape;
  Layout layout;
  bool padded = false;
  uint64_t padded_bytes = 0, block_bytes = 0, temp_bytes = 0;
};

bool MakePlan(const ReduceScatterCall& c, const CollEnv& env, Plan* plan) {
  VectorShape& s = plan->shape;
  if (!ShapeOf(c, env.size, env.rank, &s) ||
      GetLayout(c.datatype, &plan->layout) != MPI_SUCCESS) {
    return false;
  }
  const int64_t all = s.largest * env.size;
  if (all > INT_MAX) return false;
  plan->padded = all != s.total;
  if (plan->padded && !IsPredefinedOp(c.op)) return false;
  const Layout& l = plan->layout;
  plan->block_bytes = l.Span(s.largest);
  plan->temp_bytes = CopyTypedTemp(s.largest, l);
  if (plan->padded) plan->padded_bytes = l.Span(all);
  return true;
}

uint64_t ScratchBytes(const Plan& plan) {
  return (plan.padded ? AlignUp(plan.padded_bytes) : 0) + AlignUp(plan.block_bytes) +
         AlignUp(plan.temp_bytes);
}

std::optional<uint64_t> Need(const ReduceScatterCall& c, const CollEnv& env) {
  Plan plan;
  if (!MakePlan(c, env, &plan)) return std::nullopt;
  return ScratchBytes(plan);
}

int Run(const ReduceScatterCall& c, const CollEnv& env) {
  Plan plan;
  if (!MakePlan(c, env, &plan)) return MPI_ERR_COUNT;
  const Layout& l = plan.layout;
  const int64_t block = plan.shape.largest;
  const int mine = c.recvcounts[env.rank];
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  ScratchPool::Lease lease = env.scratch->Acquire(ScratchBytes(plan));
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  Carver carve(lease.data());
  void* padded_mem = plan.padded ? carve.Take(plan.padded_bytes) : nullptr;
  void* scratch_block = l.Base(carve.Take(plan.block_bytes));
  void* temp = carve.Take(plan.temp_bytes);

  const void* input = in_place ? c.recvbuf : c.sendbuf;
  int rc;
  if (plan.padded) {
    void* padded = l.Base(padded_mem);
    memset(padded_mem, 0, plan.padded_bytes);
    int64_t offset = 0;
    for (int i = 0; i < env.size; ++i) {
      rc = CopyTyped(l.At(input, offset), l.At(padded, i * block), c.recvcounts[i],
                     c.datatype, l, temp);
      if (rc != MPI_SUCCESS) return rc;
      offset += c.recvcounts[i];
    }
    input = padded;
  }
  // The result goes straight to recvbuf when it is a whole block that
  // aliases no input; else to scratch, and its first `mine` elements on.
  const bool direct = mine == block && (!in_place || plan.padded);
  void* out = direct ? c.recvbuf : scratch_block;
  rc = PMPI_Reduce_scatter_block(input, out, static_cast<int>(block), c.datatype, c.op,
                                 env.comm);
  if (rc != MPI_SUCCESS || direct) return rc;
  return CopyTyped(scratch_block, c.recvbuf, mine, c.datatype, l, temp);
}

}  // namespace

const AlgorithmImpl<ReduceScatterCall> kReducescatterAsReducescatterblockPadded = {
    Algorithm::kReducescatterAsReducescatterblockPadded, Need, Run};

}  // namespace colltune::shim
