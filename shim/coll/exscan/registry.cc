#include "shim/coll/exscan/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<ExscanCall>* Algorithms<ExscanCall>::Find(Algorithm id) {
  static const AlgorithmImpl<ExscanCall>* const kAll[] = {
      &kExscanAsScanShift,
  };
  return FindIn(kAll, id);
}

}  // namespace colltune::shim
