#include "shim/coll/gather/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<GatherCall>* Algorithms<GatherCall>::Find(Algorithm id) {
  static const AlgorithmImpl<GatherCall>* const kAll[] = {
      &kGatherAsAllgather,
      &kGatherAsGatherv,
      &kGatherAsReduce,
      &kGatherAsTuwTree,
  };
  return FindIn(kAll, id);
}

Block OwnBlock(const GatherCall& c, int rank) {
  if (rank == c.root && c.sendbuf == MPI_IN_PLACE) {
    return BlockOf(c.recvbuf, rank, c.recvcount, c.recvtype);
  }
  return Block{c.sendbuf, c.sendcount, c.sendtype};
}

}  // namespace colltune::shim
