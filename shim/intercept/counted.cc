// The collectives the shim counts but does not tune (common/counted.h):
// non-blocking (MPI_I*), persistent (MPI-4 MPI_*_init; Open MPI 4.1's
// MPIX_*_init of its pcollreq extension) and neighbourhood (MPI_Neighbor_*,
// MPI_Ineighbor_*, MPI_Neighbor_*_init), and the starts of the persistent
// ones (MPI_Start, MPI_Startall, with MPI_Request_free). Each wrapper counts
// the call (shim/runtime/counted.h: one byte load, and when counting, the
// size key and one relaxed increment) and calls the library's own function
// with the same arguments. Nothing is decided, so no rank agreement is
// needed, and inter-communicators are counted like the others.
//
// The size key is the corresponding blocking collective's (catalog.h,
// shim/coll/calls.h) where it needs nothing but the call's arguments:
// count x size for bcast, reduce, allreduce, scan, exscan and
// reduce_scatter_block (recvcount); the per-process block for allgather and
// alltoall, and the per-neighbour block for neighbor_allgather and
// neighbor_alltoall (the receive side when the send side is MPI_IN_PLACE);
// gather's and scatter's block (the root's own block equals the others' by
// MPI's type-signature rule, so no rank is needed; MPI_ROOT uses the root's
// arguments, MPI_PROC_NULL counts 0). Barrier, every v and w variant and the
// neighbourhood v and w collectives count at 0 bytes: their sizes need the
// communicator's size or differ per rank. The keys live in counted_keys.h,
// shared with the Fortran entry points (fortran/counted_bindings.txt).
#include "common/counted.h"
#include "shim/coll/calls.h"
#include "shim/intercept/counted_keys.h"
#include "shim/intercept/export.h"
#include "shim/runtime/counted.h"

using namespace colltune;        // NOLINT: the wrappers are C entry points
using namespace colltune::shim;  // NOLINT
using namespace colltune::shim::counted_keys;  // NOLINT

// One wrapper: counts under `id` with size key `key` (computed only while
// counting), then calls the library's function. Counting happens in a function of its own with the same arguments, so
// both paths are tail calls with the arguments where the caller put them:
// without counting, a byte load, a test and the jump to the library.
#define COLLTUNE_COUNTED(Name, id, key, PARAMS, ARGS)                          \
  namespace {                                                                  \
  __attribute__((noinline, cold)) int Counted##Name PARAMS {                   \
    counted::Add(id, key);                                                     \
    return pmpi::Name ARGS;                                                    \
  }                                                                            \
  }                                                                            \
  COLLTUNE_EXPORT int MPI_##Name PARAMS {                                      \
    if (__builtin_expect(counted::On(), 0)) return Counted##Name ARGS;         \
    return pmpi::Name ARGS;                                                    \
  }

// A persistent initialization (MPI-4's MPI_<Name>, Open MPI 4.1's
// MPIX_<Name>): counted like the others, and while counting the request it
// returns is recorded, so that its starts count (runtime/counted.h).
#define COLLTUNE_COUNTED_PERSISTENT(Name, id, key, PARAMS, ARGS)               \
  namespace {                                                                  \
  __attribute__((noinline, cold)) int Counted##Name PARAMS {                   \
    const int64_t bytes = key;                                                 \
    counted::Add(id, bytes);                                                   \
    const int rc = pmpi::Name ARGS;                                            \
    TrackRequest(rc, *request, id, bytes);                                     \
    return rc;                                                                 \
  }                                                                            \
  }                                                                            \
  COLLTUNE_EXPORT int COLLTUNE_PERSISTENT_NAME(Name) PARAMS {                  \
    if (__builtin_expect(counted::On(), 0)) return Counted##Name ARGS;         \
    return pmpi::Name ARGS;                                                    \
  }

// Parameter and argument lists of the blocking forms (before the request
// of the non-blocking form, or the info and request of the persistent one).
#define P_ALLGATHER                                                                   \
  const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,           \
      int recvcount, MPI_Datatype recvtype, MPI_Comm comm
#define A_ALLGATHER sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
#define K_ALLGATHER BlockKey(sendbuf, sendcount, sendtype, recvcount, recvtype)
#define P_ALLGATHERV                                                                  \
  const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,           \
      const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm
#define A_ALLGATHERV sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
#define P_ALLREDUCE                                                                   \
  const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,    \
      MPI_Comm comm
#define A_ALLREDUCE sendbuf, recvbuf, count, datatype, op, comm
#define P_ALLTOALLV                                                                   \
  const void *sendbuf, const int sendcounts[], const int sdispls[],                   \
      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],                   \
      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm
#define A_ALLTOALLV \
  sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
#define P_ALLTOALLW                                                                   \
  const void *sendbuf, const int sendcounts[], const int sdispls[],                   \
      const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],          \
      const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm
#define A_ALLTOALLW \
  sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
// Neighbourhood alltoallw's displacements are MPI_Aint.
#define P_NALLTOALLW                                                                  \
  const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],              \
      const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],          \
      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm
#define P_BARRIER MPI_Comm comm
#define A_BARRIER comm
#define P_BCAST void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm
#define A_BCAST buffer, count, datatype, root, comm
#define P_GATHER                                                                      \
  const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,           \
      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm
#define A_GATHER sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
#define K_GATHER GatherKey(sendbuf, sendcount, sendtype, recvcount, recvtype, root)
#define K_SCATTER ScatterKey(sendcount, sendtype, recvbuf, recvcount, recvtype, root)
#define P_GATHERV                                                                     \
  const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,           \
      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,    \
      MPI_Comm comm
#define A_GATHERV \
  sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm
#define P_REDUCE                                                                      \
  const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,    \
      int root, MPI_Comm comm
#define A_REDUCE sendbuf, recvbuf, count, datatype, op, root, comm
#define P_REDUCE_SCATTER                                                              \
  const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,  \
      MPI_Op op, MPI_Comm comm
#define A_REDUCE_SCATTER sendbuf, recvbuf, recvcounts, datatype, op, comm
#define P_RSB                                                                         \
  const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,           \
      MPI_Op op, MPI_Comm comm
#define A_RSB sendbuf, recvbuf, recvcount, datatype, op, comm
#define P_SCATTERV                                                                    \
  const void *sendbuf, const int sendcounts[], const int displs[],                    \
      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,     \
      int root, MPI_Comm comm
#define A_SCATTERV \
  sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm

// The non-blocking and persistent forms of one collective of catalog.h.
#define NB(Name, Cap, coll, key, P, A)                                                   \
  COLLTUNE_COUNTED(I##Name, NonblockingId(Collective::coll), key,                   \
                   (P, MPI_Request * request), (A, request))
#define PERSISTENT(Name, Cap, coll, key, P, A)                                      \
  COLLTUNE_COUNTED_PERSISTENT(Cap##_init, PersistentId(Collective::coll), key,     \
                   (P, MPI_Info info, MPI_Request * request), (A, info, request))
// All three forms of a neighbourhood collective.
#define NEIGHBOR_BLOCKING(Name, Same, n, key, P, A) \
  COLLTUNE_COUNTED(Neighbor_##Name, NeighborId(Neighbor::n, NeighborForm::kBlocking), key, (P), (A))
#define NEIGHBOR_NB(Name, Same, n, key, P, A)                                               \
  COLLTUNE_COUNTED(Ineighbor_##Name, NeighborId(Neighbor::n, NeighborForm::kNonblocking), \
                   key, (P, MPI_Request * request), (A, request))
#define NEIGHBOR_PERSISTENT(Name, Same, n, key, P, A)                                       \
  COLLTUNE_COUNTED_PERSISTENT(Neighbor_##Name##_init,                                            \
                   NeighborId(Neighbor::n, NeighborForm::kPersistent), key,           \
                   (P, MPI_Info info, MPI_Request * request), (A, info, request))

#define COLLTUNE_EACH_COLLECTIVE(F)                                                   \
  F(allgather, Allgather, kAllgather, K_ALLGATHER, P_ALLGATHER, A_ALLGATHER)                     \
  F(allgatherv, Allgatherv, kAllgatherv, 0, P_ALLGATHERV, A_ALLGATHERV)                           \
  F(allreduce, Allreduce, kAllreduce, Bytes(count, datatype), P_ALLREDUCE, A_ALLREDUCE)          \
  F(alltoall, Alltoall, kAlltoall, K_ALLGATHER, P_ALLGATHER, A_ALLGATHER)                       \
  F(alltoallv, Alltoallv, kAlltoallv, 0, P_ALLTOALLV, A_ALLTOALLV)                               \
  F(alltoallw, Alltoallw, kAlltoallw, 0, P_ALLTOALLW, A_ALLTOALLW)                               \
  F(barrier, Barrier, kBarrier, 0, P_BARRIER, A_BARRIER)                                       \
  F(bcast, Bcast, kBcast, Rooted(count, datatype, root), P_BCAST, A_BCAST)                   \
  F(exscan, Exscan, kExscan, Bytes(count, datatype), P_ALLREDUCE, A_ALLREDUCE)                \
  F(gather, Gather, kGather, K_GATHER, P_GATHER, A_GATHER)                                    \
  F(gatherv, Gatherv, kGatherv, 0, P_GATHERV, A_GATHERV)                                       \
  F(reduce, Reduce, kReduce, Rooted(count, datatype, root), P_REDUCE, A_REDUCE)               \
  F(reduce_scatter, Reduce_scatter, kReduceScatter, 0, P_REDUCE_SCATTER, A_REDUCE_SCATTER)            \
  F(reduce_scatter_block, Reduce_scatter_block, kReduceScatterBlock, Bytes(recvcount, datatype), P_RSB,     \
    A_RSB)                                                                            \
  F(scan, Scan, kScan, Bytes(count, datatype), P_ALLREDUCE, A_ALLREDUCE)                    \
  F(scatter, Scatter, kScatter, K_SCATTER, P_GATHER, A_GATHER)                                 \
  F(scatterv, Scatterv, kScatterv, 0, P_SCATTERV, A_SCATTERV)

#define COLLTUNE_EACH_NEIGHBOR(F)                                                     \
  F(allgather, allgather, kAllgather, K_ALLGATHER, P_ALLGATHER, A_ALLGATHER)                     \
  F(allgatherv, allgatherv, kAllgatherv, 0, P_ALLGATHERV, A_ALLGATHERV)                           \
  F(alltoall, alltoall, kAlltoall, K_ALLGATHER, P_ALLGATHER, A_ALLGATHER)                       \
  F(alltoallv, alltoallv, kAlltoallv, 0, P_ALLTOALLV, A_ALLTOALLV)                               \
  F(alltoallw, alltoallw, kAlltoallw, 0, P_NALLTOALLW, A_ALLTOALLW)

COLLTUNE_EACH_COLLECTIVE(NB)
COLLTUNE_EACH_NEIGHBOR(NEIGHBOR_BLOCKING)
COLLTUNE_EACH_NEIGHBOR(NEIGHBOR_NB)
#if COLLTUNE_HAVE_PERSISTENT_COLLECTIVES
COLLTUNE_EACH_COLLECTIVE(PERSISTENT)
COLLTUNE_EACH_NEIGHBOR(NEIGHBOR_PERSISTENT)
#endif

// Starts of persistent requests: counted under their initialization's
// collective and size (runtime/counted.h); point-to-point requests and
// requests initialized while the shim was not counting are not in the
// table and pass. MPI_Request_free takes a request out of the table before
// the library frees it (and nulls the handle).
namespace {
__attribute__((noinline, cold)) int CountedStart(MPI_Request* request) {
  if (request != nullptr) CountStart(*request);
  return pmpi::Start(request);
}
__attribute__((noinline, cold)) int CountedStartall(int count, MPI_Request requests[]) {
  if (requests != nullptr) {
    for (int i = 0; i < count; ++i) CountStart(requests[i]);
  }
  return pmpi::Startall(count, requests);
}
__attribute__((noinline, cold)) int CountedRequestFree(MPI_Request* request) {
  if (request != nullptr) counted::requests::Remove(RequestKey(*request));
  return pmpi::Request_free(request);
}
}  // namespace

COLLTUNE_EXPORT int MPI_Start(MPI_Request* request) {
  if (__builtin_expect(counted::On(), 0)) return CountedStart(request);
  return pmpi::Start(request);
}
COLLTUNE_EXPORT int MPI_Startall(int count, MPI_Request requests[]) {
  if (__builtin_expect(counted::On(), 0)) return CountedStartall(count, requests);
  return pmpi::Startall(count, requests);
}
COLLTUNE_EXPORT int MPI_Request_free(MPI_Request* request) {
  if (__builtin_expect(counted::On(), 0)) return CountedRequestFree(request);
  return pmpi::Request_free(request);
}
