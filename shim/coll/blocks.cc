#include "shim/coll/blocks.h"

namespace colltune::shim {

void EqualBlocks(int p, int count, int* counts, int* displs) {
  for (int i = 0; i < p; ++i) {
    counts[i] = count;
    const int64_t d = static_cast<int64_t>(i) * count;
    displs[i] = d <= INT_MAX ? static_cast<int>(d) : 0;
  }
}

void BalancedBlocks(int p, int n, int* counts, int* displs) {
  const int base = n / p, extra = n % p;
  int offset = 0;
  for (int i = 0; i < p; ++i) {
    counts[i] = base + (i < extra ? 1 : 0);
    displs[i] = offset;
    offset += counts[i];
  }
}

}  // namespace colltune::shim
