// The shim's collectives as internal functions: the C entry points
// (collectives.cc) and the Fortran ones (shim/fortran/) both call these, so a
// call takes the same dispatch, sampling, exploration and reporting path
// whichever language made it. Each returns the MPI error code.
#ifndef COLLTUNE_SHIM_INTERCEPT_API_H_
#define COLLTUNE_SHIM_INTERCEPT_API_H_

#include "shim/mpi/mpi.h"

namespace colltune::shim::api {

int Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype,
               MPI_Comm comm);
int Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm);
int Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int Barrier(MPI_Comm comm);
int Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
           MPI_Op op, MPI_Comm comm);
int Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            MPI_Comm comm);
int Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
           MPI_Op op, int root, MPI_Comm comm);
int Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
         MPI_Op op, MPI_Comm comm);
int Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
             MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm comm);

}  // namespace colltune::shim::api

#endif  // COLLTUNE_SHIM_INTERCEPT_API_H_
