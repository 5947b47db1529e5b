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
 * Scatter instead of Allreduce alone; --barrier calls MPI_Barrier instead;
 * --collective NAME calls one of allreduce, bcast, reduce, allgather, gather,
 * scatter, scan or barrier.
 *
 * --library-value N: the library's own algorithm N for that collective (the
 * value `colltune-bench --list-algorithms` prints) runs the PMPI_ path, forced
 * by the library's own control, as a site would force it without colltune:
 * Open MPI's coll_tuned_<collective>_algorithm, set for a communicator made
 * for the PMPI_ path (the MPI_ path keeps MPI_COMM_WORLD); MPICH's
 * MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM, set around each PMPI_ block. Run
 * with the shim forcing the same algorithm (COLLTUNE_FORCE=<c>=native:<name>),
 * the ratio is what colltune's way of forcing costs over the library's own. */
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
typedef int (*ScanFn)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);

struct Path {
  AllreduceFn allreduce;
  BcastFn bcast;
  ReduceFn reduce;
  AllgatherFn allgather;
  GatherFn gather, scatter;
  BarrierFn barrier;
  ScanFn scan;
};
static const struct Path kShim = {MPI_Allreduce, MPI_Bcast, MPI_Reduce, MPI_Allgather,
                                  MPI_Gather, MPI_Scatter, MPI_Barrier, MPI_Scan};
static const struct Path kLibrary = {PMPI_Allreduce, PMPI_Bcast, PMPI_Reduce,
                                     PMPI_Allgather, PMPI_Gather, PMPI_Scatter,
                                     PMPI_Barrier, PMPI_Scan};
static const char* kCollectives[] = {"allreduce", "bcast", "reduce", "allgather",
                                     "gather", "scatter", "scan", "barrier"};
static int only = -1;        /* --collective: its index in kCollectives */
static MPI_Comm path_comm[2]; /* the communicator of each path */

/* One call of the mix: call number i, on path `which` (0: MPI_, 1: PMPI_). */
static void Call(const struct Path* p, int which, long i, int mix) {
  const MPI_Comm comm = path_comm[which];
  switch (only >= 0 ? only : mix ? i % 6 : 0) {
    case 0: p->allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, comm); break;
    case 1: p->bcast(out, n, MPI_DOUBLE, 0, comm); break;
    case 2: p->reduce(in, out, n, MPI_DOUBLE, MPI_SUM, 0, comm); break;
    case 3: p->allgather(in, n, MPI_DOUBLE, big, n, MPI_DOUBLE, comm); break;
    case 4: p->gather(in, n, MPI_DOUBLE, big, n, MPI_DOUBLE, 0, comm); break;
    case 5: p->scatter(big, n, MPI_DOUBLE, out, n, MPI_DOUBLE, 0, comm); break;
    case 6: p->scan(in, out, n, MPI_DOUBLE, MPI_SUM, comm); break;
    case 7: p->barrier(comm); break;
  }
}

/* The library's own control of `collective`'s algorithm (Open MPI's or
 * MPICH's name), as an MPI_T handle; 0 if it has none. */
static int OpenControl(const char* collective, MPI_T_cvar_handle* handle, int* per_comm) {
  char name[128], upper[64];
  int i = 0;
  for (; collective[i] && i < 63; ++i) upper[i] = (char)(collective[i] - 32 * (collective[i] >= 'a' && collective[i] <= 'z'));
  upper[i] = 0;
  int provided, count, index;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  snprintf(name, sizeof name, "coll_tuned_%s_algorithm", collective);
  *per_comm = 1;
  if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS) {
    snprintf(name, sizeof name, "MPIR_CVAR_%s_INTRA_ALGORITHM", upper);
    *per_comm = 0;
    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS) return 0;
  }
  return MPI_T_cvar_handle_alloc(index, NULL, handle, &count) == MPI_SUCCESS;
}

static int Compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  long bytes = 8, block = 1000, blocks = 200;
  int mix = 0, library_value = -1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--mix")) mix = 1;
    if (!strcmp(argv[i], "--barrier")) only = 7;
    if (i + 1 < argc && !strcmp(argv[i], "--collective")) {
      for (int c = 0; c < 8; ++c) {
        if (!strcmp(argv[i + 1], kCollectives[c])) only = c;
      }
      if (only < 0) {
        fprintf(stderr, "colltune-loop: unknown collective %s\n", argv[i + 1]);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
    }
    if (i + 1 < argc && !strcmp(argv[i], "--library-value")) library_value = atoi(argv[i + 1]);
    if (i + 1 < argc && !strcmp(argv[i], "--bytes")) bytes = atol(argv[i + 1]);
    if (i + 1 < argc && !strcmp(argv[i], "--block")) block = atol(argv[i + 1]);
    if (i + 1 < argc && !strcmp(argv[i], "--blocks")) blocks = atol(argv[i + 1]);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  path_comm[0] = path_comm[1] = MPI_COMM_WORLD;
  MPI_T_cvar_handle control;
  int per_comm = 0, old_value = 0, forced = 0;
  if (library_value >= 0) {
    if (only < 0 || !OpenControl(kCollectives[only], &control, &per_comm)) {
      fprintf(stderr, "colltune-loop: --library-value needs --collective and a library "
                      "control for it\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_T_cvar_read(control, &old_value);
    if (per_comm) {
      /* Open MPI reads it when a communicator is made: a communicator of
       * its own for the PMPI_ path, then the control as it was. */
      MPI_T_cvar_write(control, &library_value);
      MPI_Comm_dup(MPI_COMM_WORLD, &path_comm[1]);
      MPI_T_cvar_write(control, &old_value);
    } else {
      forced = 1;  /* MPICH reads it at every call: set around each PMPI_ block */
    }
  }
  n = bytes / 8 > 0 ? (int)(bytes / 8) : 1;
  in = calloc((size_t)n, sizeof(double));
  out = calloc((size_t)n, sizeof(double));
  big = calloc((size_t)n * size, sizeof(double));
  double* t[2];
  t[0] = malloc(sizeof(double) * blocks);
  t[1] = malloc(sizeof(double) * blocks);
  const struct Path* paths[2] = {&kShim, &kLibrary};
  if (forced) MPI_T_cvar_write(control, &library_value);
  for (long i = 0; i < block; ++i) Call(paths[1], 1, i, mix); /* warm up */
  if (forced) MPI_T_cvar_write(control, &old_value);
  for (long i = 0; i < block; ++i) Call(paths[0], 0, i, mix);
  long call = 0;
  for (long b = 0; b < blocks; ++b) {
    for (int k = 0; k < 2; ++k) {
      const int which = (int)((b + k) % 2); /* alternate which goes first */
      if (forced && which == 1) MPI_T_cvar_write(control, &library_value);
      PMPI_Barrier(MPI_COMM_WORLD);
      const double t0 = PMPI_Wtime();
      for (long i = 0; i < block; ++i) Call(paths[which], which, call + i, mix);
      double local = (PMPI_Wtime() - t0) / (double)block, slowest = 0;
      if (forced && which == 1) MPI_T_cvar_write(control, &old_value);
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
           "(library%s) %.4f us/call, ratio %.4f\n",
           only >= 0 ? kCollectives[only] : mix ? "mix" : "allreduce", bytes, size,
           through * 1e6, library_value >= 0 ? ", its own algorithm forced by its own control" : "",
           direct * 1e6, through / direct);
  }
  free(in); free(out); free(big); free(t[0]); free(t[1]);
  if (path_comm[1] != MPI_COMM_WORLD) MPI_Comm_free(&path_comm[1]);
  if (library_value >= 0) {
    MPI_T_cvar_handle_free(&control);
    MPI_T_finalize();
  }
  MPI_Finalize();
  return 0;
}
