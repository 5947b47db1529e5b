#include "shim/coll/allgather/algorithms.h"
#include "shim/coll/datatype.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<AllgatherCall>* Algorithms<AllgatherCall>::Find(
    Algorithm id) {
  static const AlgorithmImpl<AllgatherCall>* const kAll[] = {
      &kAllgatherAsGatherBcast,
      &kAllgatherAsAlltoall,
      &kAllgatherAsAllreduce,
      &kAllgatherAsAllgatherv,
  };
  return FindIn(kAll, id);
}

Block OwnBlock(const AllgatherCall& c, int rank) {
  if (c.sendbuf == MPI_IN_PLACE) {
    return BlockOf(c.recvbuf, rank, c.recvcount, c.recvtype);
  }
  return Block{c.sendbuf, c.sendcount, c.sendtype};
}

}  // namespace colltune::shim
