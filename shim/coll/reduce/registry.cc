#include "shim/coll/reduce/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<ReduceCall>* Algorithms<ReduceCall>::Find(Algorithm id) {
  static const AlgorithmImpl<ReduceCall>* const kAll[] = {
      &kReduceAsAllreduce,
      &kReduceAsReducescatterblockGather,
      &kReduceAsReducescatterGatherv,
  };
  return FindIn(kAll, id);
}

}  // namespace colltune::shim
