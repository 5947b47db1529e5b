#include "shim/coll/scan/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<ScanCall>* Algorithms<ScanCall>::Find(Algorithm id) {
  static const AlgorithmImpl<ScanCall>* const kAll[] = {
      &kScanAsExscanReducelocal,
  };
  return FindIn(kAll, id);
}

}  // namespace colltune::shim
