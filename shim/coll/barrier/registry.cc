#include "shim/coll/barrier/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<BarrierCall>* Algorithms<BarrierCall>::Find(Algorithm id) {
  static const AlgorithmImpl<BarrierCall>* const kAll[] = {
      &kBarrierAsAllreduce,
      &kBarrierAsDissemination,
  };
  return FindIn(kAll, id);
}

}  // namespace colltune::shim
