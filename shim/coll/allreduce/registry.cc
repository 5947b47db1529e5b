#include "shim/coll/allreduce/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<AllreduceCall>* Algorithms<AllreduceCall>::Find(
    Algorithm id) {
  static const AlgorithmImpl<AllreduceCall>* const kAll[] = {
      &kAllreduceAsReduceBcast,
      &kAllreduceAsReducescatterblockAllgather,
      &kAllreduceAsReducescatterAllgatherv,
  };
  return FindIn(kAll, id);
}

}  // namespace colltune::shim
