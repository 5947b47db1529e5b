#include "shim/coll/scatterv/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<ScattervCall>* Algorithms<ScattervCall>::Find(Algorithm id) {
  static const AlgorithmImpl<ScattervCall>* const kAll[] = {
      &kScattervAsTuwTree,
      &kScattervAsAllreduceScatter,
  };
  return FindIn(kAll, id);
}

Block OwnBlock(const ScattervCall& c, int rank) {
  if (rank == c.root && c.recvbuf == MPI_IN_PLACE) return Block{nullptr, 0, c.sendtype};
  return Block{c.recvbuf, c.recvcount, c.recvtype};
}

int64_t OwnBytes(const ScattervCall& c, int rank) {
  if (rank == c.root && c.recvbuf == MPI_IN_PLACE) {
    return static_cast<int64_t>(c.sendcounts[rank]) * TypeSize(c.sendtype);
  }
  return static_cast<int64_t>(c.recvcount) * TypeSize(c.recvtype);
}

}  // namespace colltune::shim
