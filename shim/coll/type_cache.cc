#include "shim/coll/type_cache.h"

namespace colltune::shim {

std::mutex& TypeAttributeLock() {
  static std::mutex mu;
  return mu;
}

}  // namespace colltune::shim
