/* Collectives from two threads at once under MPI_THREAD_MULTIPLE: one thread
 * on MPI_COMM_WORLD, the other on a duplicate of it, which also creates and
 * frees communicators while the first runs (the window in which a
 * process-wide algorithm control set by one thread would reach another's
 * communicator). Each thread's allreduce uses a commutative user operation
 * that records the length of every invocation on its thread, so the
 * per-rank list of lengths tells which algorithm ran on each communicator
 * (as tests/mpi/native_trace.c does); the sums and a bcast are checked.
 *
 * Rank 0 prints, for every rank R, "world rank R: lengths=..." and "dup rank
 * R: lengths=..." (the last allreduce of each thread), and "WRONG" for a
 * wrong result; each rank prints "WRONG ..." if its thread level changed
 * after MPI_Init_thread.
 * Usage: mt_natives [iterations] */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kCount = 1024, kMaxLengths = 256 };

static _Thread_local int lengths[kMaxLengths];
static _Thread_local int calls;

static void record(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  double* a = in;
  double* b = inout;
  for (int i = 0; i < *len; ++i) b[i] += a[i];
  if (calls < kMaxLengths) lengths[calls] = *len;
  ++calls;
}

static int by_value(const void* a, const void* b) {
  return *(const int*)a - *(const int*)b;
}

struct Work {
  MPI_Comm comm;
  int iterations;
  int churn;  // create and free communicators between calls
  int bad;
  char fingerprint[4096];
};

static void* run(void* arg) {
  struct Work* w = arg;
  int rank, size;
  MPI_Comm_rank(w->comm, &rank);
  MPI_Comm_size(w->comm, &size);
  MPI_Op op;
  MPI_Op_create(record, 1, &op);
  double* in = malloc(sizeof(double) * kCount);
  double* out = malloc(sizeof(double) * kCount);
  for (int it = 0; it < w->iterations; ++it) {
    calls = 0;
    for (int i = 0; i < kCount; ++i) in[i] = rank + 1 + i + it;
    if (MPI_Allreduce(in, out, kCount, MPI_DOUBLE, op, w->comm) != MPI_SUCCESS) w->bad = 1;
    for (int i = 0; i < kCount; ++i) {
      const double want = (double)size * (size + 1) / 2 + (double)size * (i + it);
      if (out[i] != want) {
        if (!w->bad) fprintf(stderr, "WRONG allreduce rank %d element %d: %g, want %g\n",
                             rank, i, out[i], want);
        w->bad = 1;
      }
    }
    int value = rank == it % size ? 1000 + it : -1;
    if (MPI_Bcast(&value, 1, MPI_INT, it % size, w->comm) != MPI_SUCCESS || value != 1000 + it) {
      if (!w->bad) fprintf(stderr, "WRONG bcast rank %d: %d\n", rank, value);
      w->bad = 1;
    }
    if (w->churn) {
      MPI_Comm extra;
      if (MPI_Comm_dup(w->comm, &extra) == MPI_SUCCESS) {
        int sum = 0, one = 1;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, extra);
        if (sum != size) w->bad = 1;
        MPI_Comm_free(&extra);
      } else {
        w->bad = 1;
      }
    }
  }
  const int n = calls < kMaxLengths ? calls : kMaxLengths;
  qsort(lengths, n, sizeof(int), by_value);
  int at = 0;
  for (int i = 0; i < n && at < (int)sizeof w->fingerprint - 16; ++i) {
    at += snprintf(w->fingerprint + at, sizeof w->fingerprint - at, "%s%d", i ? "," : "",
                   lengths[i]);
  }
  MPI_Op_free(&op);
  free(in);
  free(out);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided != MPI_THREAD_MULTIPLE) {
    if (rank == 0) fprintf(stderr, "WRONG: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
    MPI_Finalize();
    return 2;
  }
  // After the first collective (where a tool may start MPI_T): still the
  // level the library granted.
  MPI_Barrier(MPI_COMM_WORLD);
  int level = -1;
  MPI_Query_thread(&level);
  if (level != MPI_THREAD_MULTIPLE) {
    printf("WRONG rank %d: MPI_Query_thread says %d after MPI_Init_thread granted %d\n", rank,
           level, provided);
    MPI_Finalize();
    return 1;
  }
  const int iterations = argc > 1 ? atoi(argv[1]) : 50;
  struct Work world = {MPI_COMM_WORLD, iterations, 0, 0, ""};
  struct Work dup = {MPI_COMM_NULL, iterations, 1, 0, ""};
  MPI_Comm_dup(MPI_COMM_WORLD, &dup.comm);
  pthread_t a, b;
  pthread_create(&a, NULL, run, &world);
  pthread_create(&b, NULL, run, &dup);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  // Rank 0 prints every rank's lines: output that mpirun forwards from
  // several ranks may interleave mid-line.
  enum { kOut = 2 * sizeof world.fingerprint + 128 };
  char out[kOut];
  snprintf(out, sizeof out, "world rank %d: lengths=%s\ndup rank %d: lengths=%s\n%s", rank,
           world.fingerprint, rank, dup.fingerprint, world.bad || dup.bad ? "WRONG\n" : "");
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char* all = rank == 0 ? malloc((size_t)kOut * size) : NULL;
  MPI_Gather(out, kOut, MPI_CHAR, all, kOut, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) fputs(all + (size_t)r * kOut, stdout);
    free(all);
  }
  MPI_Comm_free(&dup.comm);
  MPI_Finalize();
  return world.bad || dup.bad;
}
