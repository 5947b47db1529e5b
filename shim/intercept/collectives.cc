// The intercepted collectives. Each wrapper packs its arguments into a call
// value and hands it to Dispatch, which either passes straight through to the
// library or runs the algorithm the table chose for this communicator and
// message size.
#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"
#include "shim/intercept/export.h"
#include "shim/runtime/runtime.h"

namespace colltune::shim {
namespace {

template <class Call>
inline int Dispatch(const Call& call, MPI_Comm comm) {
  Runtime* rt = Runtime::Current();
  if (rt == nullptr || !rt->Active(Call::kCollective)) {
    return call.Native(comm);
  }
  CommState* s = rt->StateOf(comm);
  if (s == nullptr) return call.Native(comm);
  const Algorithm algorithm = rt->Choose(
      *s, Call::kCollective, [&] { return call.KeyBytes(s->env.rank); });
  if (algorithm == Algorithm::kDefault) return call.Native(comm);
  Outcome outcome;
  const int rc = Execute(algorithm, call, s->env, &outcome);
  rt->Record(*s, Call::kCollective, algorithm, outcome);
  return rc;
}

}  // namespace
}  // namespace colltune::shim

using namespace colltune::shim;  // NOLINT: the wrappers are C entry points

COLLTUNE_EXPORT int MPI_Allgather(const void* sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm) {
  return Dispatch(AllgatherCall{sendbuf, sendcount, sendtype, recvbuf,
                                recvcount, recvtype},
                  comm);
}

COLLTUNE_EXPORT int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm) {
  return Dispatch(AllreduceCall{sendbuf, recvbuf, count, datatype, op}, comm);
}

COLLTUNE_EXPORT int MPI_Alltoall(const void* sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm) {
  return Dispatch(AlltoallCall{sendbuf, sendcount, sendtype, recvbuf,
                               recvcount, recvtype},
                  comm);
}

COLLTUNE_EXPORT int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype,
                              int root, MPI_Comm comm) {
  return Dispatch(BcastCall{buffer, count, datatype, root}, comm);
}

COLLTUNE_EXPORT int MPI_Gather(const void* sendbuf, int sendcount,
                               MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm) {
  return Dispatch(GatherCall{sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, root},
                  comm);
}

COLLTUNE_EXPORT int MPI_Gatherv(const void* sendbuf, int sendcount,
                                MPI_Datatype sendtype, void* recvbuf,
                                const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, int root,
                                MPI_Comm comm) {
  return Dispatch(GathervCall{sendbuf, sendcount, sendtype, recvbuf,
                              recvcounts, displs, recvtype, root},
                  comm);
}

COLLTUNE_EXPORT int MPI_Reduce(const void* sendbuf, void* recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op, int root,
                               MPI_Comm comm) {
  return Dispatch(ReduceCall{sendbuf, recvbuf, count, datatype, op, root},
                  comm);
}

COLLTUNE_EXPORT int MPI_Reduce_scatter_block(const void* sendbuf,
                                             void* recvbuf, int recvcount,
                                             MPI_Datatype datatype, MPI_Op op,
                                             MPI_Comm comm) {
  return Dispatch(
      ReduceScatterBlockCall{sendbuf, recvbuf, recvcount, datatype, op}, comm);
}

COLLTUNE_EXPORT int MPI_Scan(const void* sendbuf, void* recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Dispatch(ScanCall{sendbuf, recvbuf, count, datatype, op}, comm);
}

COLLTUNE_EXPORT int MPI_Scatter(const void* sendbuf, int sendcount,
                                MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm) {
  return Dispatch(ScatterCall{sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              recvtype, root},
                  comm);
}

COLLTUNE_EXPORT int MPI_Scatterv(const void* sendbuf, const int sendcounts[],
                                 const int displs[], MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount,
                                 MPI_Datatype recvtype, int root,
                                 MPI_Comm comm) {
  return Dispatch(ScattervCall{sendbuf, sendcounts, displs, sendtype, recvbuf,
                               recvcount, recvtype, root},
                  comm);
}
