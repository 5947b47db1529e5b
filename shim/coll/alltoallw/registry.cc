#include "shim/coll/alltoallw/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<AlltoallwCall>* Algorithms<AlltoallwCall>::Find(Algorithm id) {
  static const AlgorithmImpl<AlltoallwCall>* const kAll[] = {
      &kAlltoallwAsAlltoallv,
      &kAlltoallwAsPairwiseSendrecv,
  };
  return FindIn(kAll, id);
}

}  // namespace colltune::shim
