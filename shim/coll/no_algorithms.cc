// Collectives that have no algorithm besides the library's own yet: the
// shim still intercepts them (to count and, later, time them) and always runs
// the default.
#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

#define COLLTUNE_NO_ALGORITHMS(Call)                                      \
  template <>                                                             \
  const AlgorithmImpl<Call>* Algorithms<Call>::Find(Algorithm) {          \
    return nullptr;                                                       \
  }

COLLTUNE_NO_ALGORITHMS(AllgatherCall)
COLLTUNE_NO_ALGORITHMS(AlltoallCall)
COLLTUNE_NO_ALGORITHMS(GathervCall)
COLLTUNE_NO_ALGORITHMS(ReduceScatterBlockCall)
COLLTUNE_NO_ALGORITHMS(ScanCall)
COLLTUNE_NO_ALGORITHMS(ScattervCall)

#undef COLLTUNE_NO_ALGORITHMS

}  // namespace colltune::shim
