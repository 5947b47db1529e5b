#include "shim/coll/reduce_shape.h"

#include <climits>

namespace colltune::shim {

bool ShapeOf(const ReduceScatterCall& c, int p, int rank, VectorShape* s) {
  *s = VectorShape{};
  for (int i = 0; i < p; ++i) {
    const int n = c.recvcounts[i];
    if (n < 0) return false;
    if (i == rank) s->offset = s->total;
    s->total += n;
    if (n > s->largest) s->largest = n;
  }
  return s->total <= INT_MAX;
}

bool PlanPaddedBlocks(int count, MPI_Datatype datatype, int p, PaddedBlocks* plan) {
  if (count < 0 || GetLayout(datatype, &plan->layout) != MPI_SUCCESS) return false;
  const int64_t n = count;
  plan->block = (n + p - 1) / p;
  plan->padded = n % p != 0;
  plan->block_bytes = plan->layout.Span(plan->block);
  if (plan->padded) {
    plan->padded_bytes = plan->layout.Span(plan->block * p);
    plan->temp_bytes = CopyTypedTemp(n, plan->layout);
  }
  return true;
}

}  // namespace colltune::shim
