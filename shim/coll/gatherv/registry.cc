#include "shim/coll/gatherv/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<GathervCall>* Algorithms<GathervCall>::Find(Algorithm id) {
  static const AlgorithmImpl<GathervCall>* const kAll[] = {
      &kGathervAsTuwTree,
      &kGathervAsAllreduceGather,
  };
  return FindIn(kAll, id);
}

Block OwnBlock(const GathervCall& c, int rank) {
  if (rank == c.root && c.sendbuf == MPI_IN_PLACE) return Block{nullptr, 0, c.recvtype};
  return Block{c.sendbuf, c.sendcount, c.sendtype};
}

int64_t OwnBytes(const GathervCall& c, int rank) {
  if (rank == c.root && c.sendbuf == MPI_IN_PLACE) {
    return static_cast<int64_t>(c.recvcounts[rank]) * TypeSize(c.recvtype);
  }
  return static_cast<int64_t>(c.sendcount) * TypeSize(c.sendtype);
}

}  // namespace colltune::shim
