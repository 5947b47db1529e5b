/* An independent count of the collective calls a program makes, to hold the
   shim's job report against: preloaded alone (never with the shim), it
   counts each call of the C entry points (MPI_Allreduce, ...) and of the
   Fortran ones (mpi_allreduce_, which Open MPI's Fortran bindings do not
   route through the C ones), forwards it to the library, and at exit writes
   "<collective> <calls>" lines to $COUNT_DIR/<pid>.count. It knows nothing
   of the shim. Open MPI only (the applications in this directory use it). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum {
  kAllgather, kAllreduce, kAlltoall, kBcast, kGather, kGatherv, kReduce,
  kReduceScatterBlock, kScan, kScatter, kScatterv, kAllgatherv, kAlltoallv,
  kAlltoallw, kBarrier, kExscan, kReduceScatter, kCount
};
static const char* const kNames[kCount] = {
    "allgather", "allreduce", "alltoall", "bcast", "gather", "gatherv",
    "reduce", "reduce_scatter_block", "scan", "scatter", "scatterv",
    "allgatherv", "alltoallv", "alltoallw", "barrier", "exscan", "reduce_scatter"};
static long counts[kCount];

static void* next(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == NULL) {
    fprintf(stderr, "count_calls: no %s\n", name);
    abort();
  }
  return f;
}

__attribute__((destructor)) static void write_counts(void) {
  const char* dir = getenv("COUNT_DIR");
  if (dir == NULL) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/%d.count", dir, (int)getpid());
  FILE* f = fopen(path, "w");
  if (f == NULL) return;
  for (int i = 0; i < kCount; ++i) fprintf(f, "%s %ld\n", kNames[i], counts[i]);
  fclose(f);
}

/* C: the real function has the same arguments. */
#define C_WRAP(idx, Name, params, args)                                 \
  int MPI_##Name params {                                               \
    static int(*real) params;                                           \
    if (real == NULL) real = (int(*) params)next("MPI_" #Name);          \
    ++counts[idx];                                                      \
    return real args;                                                   \
  }

C_WRAP(kAllgather, Allgather,
       (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm c),
       (sb, sc, st, rb, rc, rt, c))
C_WRAP(kAllreduce, Allreduce,
       (const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
       (sb, rb, n, t, o, c))
C_WRAP(kAlltoall, Alltoall,
       (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm c),
       (sb, sc, st, rb, rc, rt, c))
C_WRAP(kBcast, Bcast, (void* b, int n, MPI_Datatype t, int r, MPI_Comm c), (b, n, t, r, c))
C_WRAP(kGather, Gather,
       (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int r,
        MPI_Comm c),
       (sb, sc, st, rb, rc, rt, r, c))
C_WRAP(kGatherv, Gatherv,
       (const void* sb, int sc, MPI_Datatype st, void* rb, const int* rcs, const int* ds,
        MPI_Datatype rt, int r, MPI_Comm c),
       (sb, sc, st, rb, rcs, ds, rt, r, c))
C_WRAP(kReduce, Reduce,
       (const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, int r, MPI_Comm c),
       (sb, rb, n, t, o, r, c))
C_WRAP(kReduceScatterBlock, Reduce_scatter_block,
       (const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
       (sb, rb, n, t, o, c))
C_WRAP(kScan, Scan, (const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
       (sb, rb, n, t, o, c))
C_WRAP(kScatter, Scatter,
       (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int r,
        MPI_Comm c),
       (sb, sc, st, rb, rc, rt, r, c))
C_WRAP(kScatterv, Scatterv,
       (const void* sb, const int* scs, const int* ds, MPI_Datatype st, void* rb, int rc,
        MPI_Datatype rt, int r, MPI_Comm c),
       (sb, scs, ds, st, rb, rc, rt, r, c))

C_WRAP(kAllgatherv, Allgatherv,
       (const void* sb, int sc, MPI_Datatype st, void* rb, const int* rcs, const int* ds,
        MPI_Datatype rt, MPI_Comm c),
       (sb, sc, st, rb, rcs, ds, rt, c))
C_WRAP(kAlltoallv, Alltoallv,
       (const void* sb, const int* scs, const int* sds, MPI_Datatype st, void* rb,
        const int* rcs, const int* rds, MPI_Datatype rt, MPI_Comm c),
       (sb, scs, sds, st, rb, rcs, rds, rt, c))
C_WRAP(kAlltoallw, Alltoallw,
       (const void* sb, const int* scs, const int* sds, const MPI_Datatype* sts, void* rb,
        const int* rcs, const int* rds, const MPI_Datatype* rts, MPI_Comm c),
       (sb, scs, sds, sts, rb, rcs, rds, rts, c))
C_WRAP(kBarrier, Barrier, (MPI_Comm c), (c))
C_WRAP(kExscan, Exscan, (const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
       (sb, rb, n, t, o, c))
C_WRAP(kReduceScatter, Reduce_scatter,
       (const void* sb, void* rb, const int* rcs, MPI_Datatype t, MPI_Op o, MPI_Comm c),
       (sb, rb, rcs, t, o, c))

/* Fortran: every argument by address, IERROR last; forwarded as they came. */
typedef void* P;
#define F_WRAP(idx, name, params, args)                       \
  void name params {                                          \
    static void(*real) params;                                \
    if (real == NULL) real = (void(*) params)next(#name);      \
    ++counts[idx];                                            \
    real args;                                                \
  }
F_WRAP(kAllgather, mpi_allgather_, (P a, P b, P c, P d, P e, P f, P g, P h), (a, b, c, d, e, f, g, h))
F_WRAP(kAllreduce, mpi_allreduce_, (P a, P b, P c, P d, P e, P f, P g), (a, b, c, d, e, f, g))
F_WRAP(kAlltoall, mpi_alltoall_, (P a, P b, P c, P d, P e, P f, P g, P h), (a, b, c, d, e, f, g, h))
F_WRAP(kBcast, mpi_bcast_, (P a, P b, P c, P d, P e, P f), (a, b, c, d, e, f))
F_WRAP(kGather, mpi_gather_, (P a, P b, P c, P d, P e, P f, P g, P h, P i),
       (a, b, c, d, e, f, g, h, i))
F_WRAP(kGatherv, mpi_gatherv_, (P a, P b, P c, P d, P e, P f, P g, P h, P i, P j),
       (a, b, c, d, e, f, g, h, i, j))
F_WRAP(kReduce, mpi_reduce_, (P a, P b, P c, P d, P e, P f, P g, P h), (a, b, c, d, e, f, g, h))
F_WRAP(kReduceScatterBlock, mpi_reduce_scatter_block_, (P a, P b, P c, P d, P e, P f, P g),
       (a, b, c, d, e, f, g))
F_WRAP(kScan, mpi_scan_, (P a, P b, P c, P d, P e, P f, P g), (a, b, c, d, e, f, g))
F_WRAP(kScatter, mpi_scatter_, (P a, P b, P c, P d, P e, P f, P g, P h, P i),
       (a, b, c, d, e, f, g, h, i))
F_WRAP(kScatterv, mpi_scatterv_, (P a, P b, P c, P d, P e, P f, P g, P h, P i, P j),
       (a, b, c, d, e, f, g, h, i, j))
F_WRAP(kAllgatherv, mpi_allgatherv_, (P a, P b, P c, P d, P e, P f, P g, P h, P i),
       (a, b, c, d, e, f, g, h, i))
F_WRAP(kAlltoallv, mpi_alltoallv_, (P a, P b, P c, P d, P e, P f, P g, P h, P i, P j),
       (a, b, c, d, e, f, g, h, i, j))
F_WRAP(kAlltoallw, mpi_alltoallw_, (P a, P b, P c, P d, P e, P f, P g, P h, P i, P j),
       (a, b, c, d, e, f, g, h, i, j))
F_WRAP(kBarrier, mpi_barrier_, (P a, P b), (a, b))
F_WRAP(kExscan, mpi_exscan_, (P a, P b, P c, P d, P e, P f, P g), (a, b, c, d, e, f, g))
F_WRAP(kReduceScatter, mpi_reduce_scatter_, (P a, P b, P c, P d, P e, P f, P g),
       (a, b, c, d, e, f, g))
