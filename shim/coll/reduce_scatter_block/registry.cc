#include "shim/coll/reduce_scatter_block/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<ReduceScatterBlockCall>*
Algorithms<ReduceScatterBlockCall>::Find(Algorithm id) {
  static const AlgorithmImpl<ReduceScatterBlockCall>* const kAll[] = {
      &kReducescatterblockAsReduceScatter,
      &kReducescatterblockAsReducescatter,
      &kReducescatterblockAsAllreduce,
  };
  return FindIn(kAll, id);
}

}  // namespace colltune::shim
