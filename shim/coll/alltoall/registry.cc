#include "shim/coll/alltoall/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<AlltoallCall>* Algorithms<AlltoallCall>::Find(Algorithm id) {
  static const AlgorithmImpl<AlltoallCall>* const kAll[] = {
      &kAlltoallAsAlltoallv,
  };
  return FindIn(kAll, id);
}

}  // namespace colltune::shim
