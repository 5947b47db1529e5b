#include "shim/coll/alltoallv/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<AlltoallvCall>* Algorithms<AlltoallvCall>::Find(Algorithm id) {
  static const AlgorithmImpl<AlltoallvCall>* const kAll[] = {
      &kAlltoallvAsAlltoallPadded,
      &kAlltoallvAsPairwiseSendrecv,
  };
  return FindIn(kAll, id);
}

}  // namespace colltune::shim
