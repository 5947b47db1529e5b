// The arguments of each intercepted collective, as one value.
//
// Each call type knows its collective, how to run the MPI library's own
// implementation (through PMPI), and its message-size key: the byte count
// every rank of the communicator computes identically (the contract's rule 3).
// Decisions are taken on that key only, so all ranks pick the same algorithm.
// Collectives keyed on no size (SizeKey::kNone) return 0; Allgatherv and
// Reduce_scatter return the total of all blocks, which every rank adds up
// from the counts it holds (O(p), computed only where a decision needs it).
#ifndef COLLTUNE_SHIM_COLL_CALLS_H_
#define COLLTUNE_SHIM_COLL_CALLS_H_

#include <cstdint>
#include <type_traits>

#include "common/catalog.h"
#include "shim/coll/datatype.h"
#include "shim/coll/env.h"
#include "shim/mpi/mpi.h"

namespace colltune::shim {

// count * MPI_Type_size(type), or -1 if the type is invalid or the count
// negative (the library then reports the error itself).
inline int64_t Bytes(int count, MPI_Datatype type) {
  if (count < 0) return -1;
  if (count == 0) return 0;
  const int64_t size = TypeSize(type);
  return size < 0 ? -1 : count * size;
}

// The sum of `n` counts times MPI_Type_size(type), or -1 if a count is
// negative or the type invalid.
inline int64_t TotalBytes(const int* counts, int n, MPI_Datatype type) {
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    if (counts[i] < 0) return -1;
    total += counts[i];
  }
  if (total == 0) return 0;
  const int64_t size = TypeSize(type);
  return size < 0 ? -1 : total * size;
}

struct AllgatherCall {
  static constexpr Collective kCollective = Collective::kAllgather;
  const void* sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  int recvcount;
  MPI_Datatype recvtype;

  int64_t KeyBytes(const CollEnv& /*env*/) const {
    return sendbuf == MPI_IN_PLACE ? Bytes(recvcount, recvtype)
                                   : Bytes(sendcount, sendtype);
  }
  int Native(MPI_Comm comm) const {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, comm);
  }
};

struct AllgathervCall {
  static constexpr Collective kCollective = Collective::kAllgatherv;
  const void* sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  const int* recvcounts;
  const int* displs;
  MPI_Datatype recvtype;

  // Every rank holds all counts: the total gathered, in bytes.
  int64_t KeyBytes(const CollEnv& env) const {
    return env.inter ? 0 : TotalBytes(recvcounts, env.size, recvtype);
  }
  int Native(MPI_Comm comm) const {
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                           recvtype, comm);
  }
};

struct AllreduceCall {
  static constexpr Collective kCollective = Collective::kAllreduce;
  const void* sendbuf;
  void* recvbuf;
  int count;
  MPI_Datatype datatype;
  MPI_Op op;

  int64_t KeyBytes(const CollEnv& /*env*/) const { return Bytes(count, datatype); }
  int Native(MPI_Comm comm) const {
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  }
};

struct AlltoallCall {
  static constexpr Collective kCollective = Collective::kAlltoall;
  const void* sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  int recvcount;
  MPI_Datatype recvtype;

  int64_t KeyBytes(const CollEnv& /*env*/) const {
    return sendbuf == MPI_IN_PLACE ? Bytes(recvcount, recvtype)
                                   : Bytes(sendcount, sendtype);
  }
  int Native(MPI_Comm comm) const {
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         recvtype, comm);
  }
};

struct AlltoallvCall {
  static constexpr Collective kCollective = Collective::kAlltoallv;
  const void* sendbuf;
  const int* sendcounts;
  const int* sdispls;
  MPI_Datatype sendtype;
  void* recvbuf;
  const int* recvcounts;
  const int* rdispls;
  MPI_Datatype recvtype;

  // Each rank holds its own row of counts only: no rank-invariant size.
  int64_t KeyBytes(const CollEnv& /*env*/) const { return 0; }
  int Native(MPI_Comm comm) const {
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                          rdispls, recvtype, comm);
  }
};

struct AlltoallwCall {
  static constexpr Collective kCollective = Collective::kAlltoallw;
  const void* sendbuf;
  const int* sendcounts;
  const int* sdispls;  // in bytes
  const MPI_Datatype* sendtypes;
  void* recvbuf;
  const int* recvcounts;
  const int* rdispls;  // in bytes
  const MPI_Datatype* recvtypes;

  int64_t KeyBytes(const CollEnv& /*env*/) const { return 0; }
  int Native(MPI_Comm comm) const {
    return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                          rdispls, recvtypes, comm);
  }
};

struct BarrierCall {
  static constexpr Collective kCollective = Collective::kBarrier;

  int64_t KeyBytes(const CollEnv& /*env*/) const { return 0; }
  int Native(MPI_Comm comm) const { return PMPI_Barrier(comm); }
};

struct BcastCall {
  static constexpr Collective kCollective = Collective::kBcast;
  void* buffer;
  int count;
  MPI_Datatype datatype;
  int root;

  int64_t KeyBytes(const CollEnv& /*env*/) const { return Bytes(count, datatype); }
  int Native(MPI_Comm comm) const {
    return PMPI_Bcast(buffer, count, datatype, root, comm);
  }
};

struct ExscanCall {
  static constexpr Collective kCollective = Collective::kExscan;
  const void* sendbuf;
  void* recvbuf;
  int count;
  MPI_Datatype datatype;
  MPI_Op op;

  int64_t KeyBytes(const CollEnv& /*env*/) const { return Bytes(count, datatype); }
  int Native(MPI_Comm comm) const {
    return PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
  }
};

struct GatherCall {
  static constexpr Collective kCollective = Collective::kGather;
  const void* sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  int recvcount;
  MPI_Datatype recvtype;
  int root;

  // The root's send arguments are ignored with MPI_IN_PLACE and the other
  // ranks' receive arguments always are; equal by the type-signature rule.
  int64_t KeyBytes(const CollEnv& env) const {
    return env.rank == root ? Bytes(recvcount, recvtype)
                        : Bytes(sendcount, sendtype);
  }
  int Native(MPI_Comm comm) const {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, root, comm);
  }
};

struct GathervCall {
  static constexpr Collective kCollective = Collective::kGatherv;
  const void* sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  const int* recvcounts;
  const int* displs;
  MPI_Datatype recvtype;
  int root;

  // No rank-invariant size exists: decisions use the communicator size only.
  int64_t KeyBytes(const CollEnv& /*env*/) const { return 0; }
  int Native(MPI_Comm comm) const {
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                        displs, recvtype, root, comm);
  }
};

struct ReduceCall {
  static constexpr Collective kCollective = Collective::kReduce;
  const void* sendbuf;
  void* recvbuf;
  int count;
  MPI_Datatype datatype;
  MPI_Op op;
  int root;

  int64_t KeyBytes(const CollEnv& /*env*/) const { return Bytes(count, datatype); }
  int Native(MPI_Comm comm) const {
    return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  }
};

struct ReduceScatterCall {
  static constexpr Collective kCollective = Collective::kReduceScatter;
  const void* sendbuf;
  void* recvbuf;
  const int* recvcounts;
  MPI_Datatype datatype;
  MPI_Op op;

  // Every rank holds all counts: the whole vector reduced, in bytes.
  int64_t KeyBytes(const CollEnv& env) const {
    return env.inter ? 0 : TotalBytes(recvcounts, env.size, datatype);
  }
  int Native(MPI_Comm comm) const {
    return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  }
};

struct ReduceScatterBlockCall {
  static constexpr Collective kCollective = Collective::kReduceScatterBlock;
  const void* sendbuf;
  void* recvbuf;
  int recvcount;
  MPI_Datatype datatype;
  MPI_Op op;

  int64_t KeyBytes(const CollEnv& /*env*/) const { return Bytes(recvcount, datatype); }
  int Native(MPI_Comm comm) const {
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                     comm);
  }
};

struct ScanCall {
  static constexpr Collective kCollective = Collective::kScan;
  const void* sendbuf;
  void* recvbuf;
  int count;
  MPI_Datatype datatype;
  MPI_Op op;

  int64_t KeyBytes(const CollEnv& /*env*/) const { return Bytes(count, datatype); }
  int Native(MPI_Comm comm) const {
    return PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
  }
};

struct ScatterCall {
  static constexpr Collective kCollective = Collective::kScatter;
  const void* sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  int recvcount;
  MPI_Datatype recvtype;
  int root;

  int64_t KeyBytes(const CollEnv& env) const {
    return env.rank == root ? Bytes(sendcount, sendtype)
                        : Bytes(recvcount, recvtype);
  }
  int Native(MPI_Comm comm) const {
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, root, comm);
  }
};

struct ScattervCall {
  static constexpr Collective kCollective = Collective::kScatterv;
  const void* sendbuf;
  const int* sendcounts;
  const int* displs;
  MPI_Datatype sendtype;
  void* recvbuf;
  int recvcount;
  MPI_Datatype recvtype;
  int root;

  int64_t KeyBytes(const CollEnv& /*env*/) const { return 0; }
  int Native(MPI_Comm comm) const {
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                         recvcount, recvtype, root, comm);
  }
};

// The datatype that describes this rank's data: `datatype`; for gathers the
// receive type at the root and the send type elsewhere, for scatters the
// reverse; else the send type (the receive type with MPI_IN_PLACE).
// MPI_DATATYPE_NULL for a barrier and for the per-peer types of Alltoallw.
template <class Call>
MPI_Datatype DataTypeOf(const Call& c, int rank) {
  if constexpr (std::is_same_v<Call, AlltoallwCall> || std::is_same_v<Call, BarrierCall>) {
    return MPI_DATATYPE_NULL;
  } else if constexpr (std::is_same_v<Call, GatherCall> || std::is_same_v<Call, GathervCall>) {
    return rank == c.root ? c.recvtype : c.sendtype;
  } else if constexpr (std::is_same_v<Call, ScatterCall> ||
                       std::is_same_v<Call, ScattervCall>) {
    return rank == c.root ? c.sendtype : c.recvtype;
  } else if constexpr (std::is_same_v<Call, BcastCall> || std::is_same_v<Call, AllreduceCall> ||
                       std::is_same_v<Call, ReduceCall> || std::is_same_v<Call, ScanCall> ||
                       std::is_same_v<Call, ExscanCall> ||
                       std::is_same_v<Call, ReduceScatterCall> ||
                       std::is_same_v<Call, ReduceScatterBlockCall>) {
    return c.datatype;
  } else {
    return c.sendbuf == MPI_IN_PLACE ? c.recvtype : c.sendtype;
  }
}

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_CALLS_H_
