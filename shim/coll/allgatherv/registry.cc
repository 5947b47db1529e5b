#include "shim/coll/allgatherv/algorithms.h"

namespace colltune::shim {

template <>
const AlgorithmImpl<AllgathervCall>* Algorithms<AllgathervCall>::Find(Algorithm id) {
  static const AlgorithmImpl<AllgathervCall>* const kAll[] = {
      &kAllgathervAsGathervBcast,
      &kAllgathervAsAllgatherPadded,
  };
  return FindIn(kAll, id);
}

Block OwnBlock(const AllgathervCall& c, int rank) {
  if (c.sendbuf == MPI_IN_PLACE) {
    Layout l;
    GetLayout(c.recvtype, &l);
    return Block{l.At(static_cast<const void*>(c.recvbuf), c.displs[rank]),
                 c.recvcounts[rank], c.recvtype};
  }
  return Block{c.sendbuf, c.sendcount, c.sendtype};
}

int64_t LargestBlockBytes(const AllgathervCall& c, int p) {
  int largest = 0;
  for (int i = 0; i < p; ++i) {
    if (c.recvcounts[i] < 0) return -1;
    if (c.recvcounts[i] > largest) largest = c.recvcounts[i];
  }
  return Bytes(largest, c.recvtype);
}

}  // namespace colltune::shim
