#include "shim/coll/gather/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<GatherCall>* Algorithms<GatherCall>::Find(Algorithm id) {
  static const AlgorithmImpl<GatherCall>* const kAll[] = {
      &kGatherAsGatherv,
  };
  return FindIn(kAll, id);
}

}  // namespace colltune::shim
