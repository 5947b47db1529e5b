#include "shim/coll/scatter/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<ScatterCall>* Algorithms<ScatterCall>::Find(Algorithm id) {
  static const AlgorithmImpl<ScatterCall>* const kAll[] = {
      &kScatterAsBcast,
      &kScatterAsScatterv,
      &kScatterAsTuwTree,
  };
  return FindIn(kAll, id);
}

}  // namespace colltune::shim
