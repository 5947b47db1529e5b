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

}  // namespace colltune::shim
