#include "shim/coll/bcast/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<BcastCall>* Algorithms<BcastCall>::Find(Algorithm id) {
  static const AlgorithmImpl<BcastCall>* const kAll[] = {
      &kBcastAsAllgatherv,
      &kBcastAsScatterAllgather,
  };
  return FindIn(kAll, id);
}

}  // namespace colltune::shim
