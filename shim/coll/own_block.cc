#include "shim/coll/own_block.h"

namespace colltune::shim {

Block OwnBlock(const AllgatherCall& c, int rank) {
  if (c.sendbuf == MPI_IN_PLACE) {
    return BlockOf(c.recvbuf, rank, c.recvcount, c.recvtype);
  }
  return Block{c.sendbuf, c.sendcount, c.sendtype};
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

Block OwnBlock(const GatherCall& c, int rank) {
  if (rank == c.root && c.sendbuf == MPI_IN_PLACE) {
    return BlockOf(c.recvbuf, rank, c.recvcount, c.recvtype);
  }
  return Block{c.sendbuf, c.sendcount, c.sendtype};
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

namespace {
template <typename Call>
int UnpackAll(const void* bytes, const Call& c, int p, const Layout& recv) {
  return UnpackBytes(bytes, c.recvbuf, static_cast<int64_t>(c.recvcount) * p, c.recvtype, recv);
}

template <typename Call>
int LargestOf(const Call& c, const CollEnv& env, int64_t* largest) {
  const int64_t mine = OwnBytes(c, env.rank);
  if (mine < 0) return MPI_ERR_TYPE;
  return PMPI_Allreduce(&mine, largest, 1, MPI_INT64_T, MPI_MAX, env.comm);
}
}  // namespace

int LargestOwnBytes(const GathervCall& c, const CollEnv& env, int64_t* largest) {
  return LargestOf(c, env, largest);
}

int LargestOwnBytes(const ScattervCall& c, const CollEnv& env, int64_t* largest) {
  return LargestOf(c, env, largest);
}

int UnpackGathered(const void* bytes, const AllgatherCall& c, int p, const Layout& recv) {
  return UnpackAll(bytes, c, p, recv);
}

int UnpackGathered(const void* bytes, const GatherCall& c, int p, const Layout& recv) {
  return UnpackAll(bytes, c, p, recv);
}

}  // namespace colltune::shim
