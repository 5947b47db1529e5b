/* colltune-loop: what the shim adds to a job, measured inside one job.
 *
 * With the shim preloaded, MPI_X goes through the shim and PMPI_X does not.
 * The program runs blocks of calls through one and then the other,
 * alternating, and prints the median time per call of each and their ratio:
 * the shim's overhead (with whatever sampling and exploration it does) in
 * one run, on the same buffers, interleaved so that drifts of the machine
 * hit both. Without the shim both paths are the library's, and the ratio
 * shows the method's noise.
 *
 *   mpirun -np 2 -x LD_PRELOAD=libcolltune.so colltune-loop --bytes 8
 *   mpirun -np 4 ... colltune-loop --bytes 4096 --mix
 *
 * --mix cycles through Allreduce, Bcast, Reduce, Allgather, Gather and
 * Scatter instead of Allreduce alone; --barrier calls MPI_Barrier instead. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static int n;  /* doubles */
static double *in, *out, *big;

typedef int (*AllreduceFn)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef int (*BcastFn)(void*, int, MPI_Datatype, int, MPI_Comm);
typedef int (*ReduceFn)(const void*, void*, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
typedef int (*AllgatherFn)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype,
                           MPI_Comm);
typedef int (*GatherFn)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int,
                        MPI_Comm);
typedef int (*BarrierFn)(MPI_Comm);

struct Path {
  AllreduceFn allreduce;
  BcastFn bcast;
  ReduceFn reduce;
  AllgatherFn allgather;
  GatherFn gather, scatter;
  BarrierFn barrier;
};
static const struct Path kShim = {MPI_Allreduce, MPI_Bcast, MPI_Reduce, MPI_Allgather,
                                  MPI_Gather, MPI_Scatter, MPI_Barrier};
static const struct Path kLibrary = {PMPI_Allreduce, PMPI_Bcast, PMPI_Reduce,
                                     PMPI_Allgather, PMPI_Gather, PMPI_Scatter,
                                     PMPI_Barrier};
static int barrier_only;

/* One call of the mix: call number i. */
static void Call(const struct Path* p, long i, int mix) {
  if (barrier_only) {
    p->barrier(MPI_COMM_WORLD);
    return;
  }
  switch (mix ? i % 6 : 0) {
    case 0: p->allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case 1: p->bcast(out, n, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
    case 2: p->reduce(in, out, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case 3: p->allgather(in, n, MPI_DOUBLE, big, n, MPI_DOUBLE, MPI_COMM_WORLD); break;
    case 4: p->gather(in, n, MPI_DOUBLE, big, n, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
    case 5: p->scatter(big, n, MPI_DOUBLE, out, n, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
  }
}

static int Compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  long bytes = 8, block = 1000, blocks = 200;
  int mix = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--mix")) mix = 1;
    if (!strcmp(argv[i], "--barrier")) barrier_only = 1;
    if (i + 1 < argc && !strcmp(argv[i], "--bytes")) bytes = atol(argv[i + 1]);
    if (i + 1 < argc && !strcmp(argv[i], "--block")) block = atol(argv[i + 1]);
    if (i + 1 < argc && !strcmp(argv[i], "--blocks")) blocks = atol(argv[i + 1]);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  n = bytes / 8 > 0 ? (int)(bytes / 8) : 1;
  in = calloc((size_t)n, sizeof(double));
  out = calloc((size_t)n, sizeof(double));
  big = calloc((size_t)n * size, sizeof(double));
  double* t[2];
  t[0] = malloc(sizeof(double) * blocks);
  t[1] = malloc(sizeof(double) * blocks);
  const struct Path* paths[2] = {&kShim, &kLibrary};
  for (long i = 0; i < 2 * block; ++i) Call(paths[i % 2], i, mix); /* warm up */
  long call = 0;
  for (long b = 0; b < blocks; ++b) {
    for (int k = 0; k < 2; ++k) {
      const int which = (int)((b + k) % 2); /* alternate which goes first */
      PMPI_Barrier(MPI_COMM_WORLD);
      const double t0 = PMPI_Wtime();
      for (long i = 0; i < block; ++i) Call(paths[which], call + i, mix);
      double local = (PMPI_Wtime() - t0) / (double)block, slowest = 0;
      PMPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      t[which][b] = slowest;
    }
    call += block;
  }
  if (rank == 0) {
    qsort(t[0], (size_t)blocks, sizeof(double), Compare);
    qsort(t[1], (size_t)blocks, sizeof(double), Compare);
    const double through = t[0][blocks / 2], direct = t[1][blocks / 2];
    printf("%s %ld B, %d processes: MPI_ (through the shim) %.4f us/call, PMPI_ "
           "(library) %.4f us/call, ratio %.4f\n",
           barrier_only ? "barrier" : mix ? "mix" : "allreduce", bytes, size, through * 1e6, direct * 1e6,
           through / direct);
  }
  free(in); free(out); free(big); free(t[0]); free(t[1]);
  MPI_Finalize();
  return 0;
}
