#include <type_traits>

#include "shim/coll/mockups.h"

namespace colltune::shim {

// By id: default (0) has none; every mock-up row of common/mockups.def has
// its implementation, whose call type is its row's collective.
const void* const kMockupImpls[] = {
    nullptr,
#define COLLTUNE_MOCKUP(id, collective, name, guideline, what) &k##id,
#include "common/mockups.def"
#undef COLLTUNE_MOCKUP
};
static_assert(std::extent_v<decltype(kMockupImpls)> == IndexOf(Algorithm::kFirstNative),
              "one implementation per mock-up id");

}  // namespace colltune::shim
