// Collectives that have no algorithm besides the library's own yet (the
// irregular ones): the shim still intercepts them and runs the default.
#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

#define COLLTUNE_NO_ALGORITHMS(Call)                                      \
  template <>                                                             \
  const AlgorithmImpl<Call>* Algorithms<Call>::Find(Algorithm) {          \
    return nullptr;                                                       \
  }

COLLTUNE_NO_ALGORITHMS(GathervCall)
COLLTUNE_NO_ALGORITHMS(ScattervCall)

#undef COLLTUNE_NO_ALGORITHMS

}  // namespace colltune::shim
