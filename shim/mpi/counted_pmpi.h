// The PMPI functions of the collectives the shim counts without tuning them
// (common/counted.h, shim/intercept/counted.cc): part of
// COLLTUNE_PMPI_FUNCTIONS (mpi.h), so each is looked up at run time like
// every other entry point. Each build wraps what its library's mpi.h
// declares: the non-blocking and neighbourhood collectives of MPI-3 always,
// the persistent collectives of MPI-4 where MPI_VERSION >= 4 (MPICH 4), or
// their MPIX_*_init forms where Open MPI's mpi-ext.h has its pcollreq
// extension (Open MPI 4.1): COLLTUNE_PERSISTENT_PMPI(name) is the PMPI name
// of a persistent function (PMPI_ or PMPIX_), COLLTUNE_PERSISTENT_NAME the
// MPI name the shim exports (MPI_ or MPIX_). MPI_Start, MPI_Startall and
// MPI_Request_free are wrapped to count the starts of persistent collective
// requests. Included by mpi.h after <mpi.h>.
#ifndef COLLTUNE_SHIM_MPI_COUNTED_PMPI_H_
#define COLLTUNE_SHIM_MPI_COUNTED_PMPI_H_

#define COLLTUNE_NONBLOCKING_PMPI_FUNCTIONS(X)                                   \
  X(Iallgather) X(Iallgatherv) X(Iallreduce) X(Ialltoall) X(Ialltoallv)          \
  X(Ialltoallw) X(Ibarrier) X(Ibcast) X(Iexscan) X(Igather) X(Igatherv)          \
  X(Ireduce) X(Ireduce_scatter) X(Ireduce_scatter_block) X(Iscan) X(Iscatter)    \
  X(Iscatterv)                                                                   \
  X(Neighbor_allgather) X(Neighbor_allgatherv) X(Neighbor_alltoall)              \
  X(Neighbor_alltoallv) X(Neighbor_alltoallw) X(Ineighbor_allgather)             \
  X(Ineighbor_allgatherv) X(Ineighbor_alltoall) X(Ineighbor_alltoallv)           \
  X(Ineighbor_alltoallw)

#define COLLTUNE_REQUEST_PMPI_FUNCTIONS(X) X(Start) X(Startall) X(Request_free)

#if defined(OPEN_MPI)
#include <mpi-ext.h>
#endif

#if defined(MPI_VERSION) && MPI_VERSION >= 4
#define COLLTUNE_HAVE_PERSISTENT_COLLECTIVES 1
#define COLLTUNE_PERSISTENT_PMPI(name) PMPI_##name
#define COLLTUNE_PERSISTENT_PMPI_PREFIX "PMPI_"
#define COLLTUNE_PERSISTENT_NAME(name) MPI_##name
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define COLLTUNE_HAVE_PERSISTENT_COLLECTIVES 1
#define COLLTUNE_PERSISTENT_PMPI(name) PMPIX_##name
#define COLLTUNE_PERSISTENT_PMPI_PREFIX "PMPIX_"
#define COLLTUNE_PERSISTENT_NAME(name) MPIX_##name
#else
#define COLLTUNE_HAVE_PERSISTENT_COLLECTIVES 0
#endif

#if COLLTUNE_HAVE_PERSISTENT_COLLECTIVES
#define COLLTUNE_PERSISTENT_PMPI_FUNCTIONS(X)                                    \
  X(Allgather_init) X(Allgatherv_init) X(Allreduce_init) X(Alltoall_init)        \
  X(Alltoallv_init) X(Alltoallw_init) X(Barrier_init) X(Bcast_init)              \
  X(Exscan_init) X(Gather_init) X(Gatherv_init) X(Reduce_init)                   \
  X(Reduce_scatter_init) X(Reduce_scatter_block_init) X(Scan_init)               \
  X(Scatter_init) X(Scatterv_init) X(Neighbor_allgather_init)                    \
  X(Neighbor_allgatherv_init) X(Neighbor_alltoall_init)                          \
  X(Neighbor_alltoallv_init) X(Neighbor_alltoallw_init)
#else
#define COLLTUNE_HAVE_PERSISTENT_COLLECTIVES 0
#define COLLTUNE_PERSISTENT_PMPI_FUNCTIONS(X)
#endif

// (The persistent ones are looked up under their own prefix: pmpi.cc.)
#define COLLTUNE_COUNTED_PMPI_FUNCTIONS(X) \
  COLLTUNE_NONBLOCKING_PMPI_FUNCTIONS(X) COLLTUNE_REQUEST_PMPI_FUNCTIONS(X)

#endif  // COLLTUNE_SHIM_MPI_COUNTED_PMPI_H_
