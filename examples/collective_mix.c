/* An ordinary MPI application, unaware of colltune: it runs a mix of
 * collectives at one message size, checks every result, and prints how long
 * each collective took per call. The README's demo runs it with and without
 * the shim; the end-to-end tests use it as "a job".
 *
 *   mpirun -np 4 collective_mix [--bytes 65536] [--iters 200]
 *                               [--collectives allreduce,bcast,...] [--work US]
 *                               [--root R] [--warmup N]
 *
 * --warmup N: N calls of each collective first, timed apart ("first N"):
 * a process's first calls pay once what a long job pays once (buffers the
 * library grows for messages that arrive early, connections, a tuning
 * library's own set-up); the main loop then times the steady state.
 * --root R: the root of rooted collectives (default: the last rank).
 * --work US: before each call every rank computes for a time of its own,
 * uniform in [0, US] microseconds (a different draw per rank and call), as
 * programs arrive at collectives after uneven work; the time per call printed
 * is then what the loop took beyond the work (its slowest rank's time minus
 * the largest total work of one rank).
 *
 * Exit status 1 if any result is wrong. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static double work_us; /* --work */
static int root_arg = -1; /* --root */

/* A rank's computation before call `it`: busy, as computation is. The draw
 * depends on rank and iteration only (splitmix64), so runs repeat. */
static double WorkBefore(long it) {
  if (work_us <= 0) return 0;
  unsigned long long z = ((unsigned long long)rank << 32) + (unsigned long long)it;
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  const double seconds = (double)(z >> 11) * 0x1.0p-53 * work_us * 1e-6;
  const double until = MPI_Wtime() + seconds;
  while (MPI_Wtime() < until) {
  }
  return seconds;
}

/* Values every rank can predict: element i of rank r. */
static double Val(int r, long i) { return (double)((r * 7 + i * 3) % 101); }
static unsigned char Byte(int r, long i) { return (unsigned char)((r * 31 + i * 7) % 251); }

static int CheckDoubles(const char* what, const double* got, long n, int root_only,
                        int root, int sum) {
  if (root_only && rank != root) return 0;
  for (long i = 0; i < n; ++i) {
    double want = 0;
    for (int r = 0; r < size; ++r) want += sum ? Val(r, i) : 0;
    if (got[i] != want) {
      fprintf(stderr, "collective_mix: %s wrong at rank %d element %ld: %g != %g\n",
              what, rank, i, got[i], want);
      return 1;
    }
  }
  return 0;
}

static int CheckBytes(const char* what, const unsigned char* got, long n, int from) {
  for (long i = 0; i < n; ++i) {
    if (got[i] != Byte(from, i)) {
      fprintf(stderr, "collective_mix: %s wrong at rank %d byte %ld\n", what, rank, i);
      return 1;
    }
  }
  return 0;
}

/* Runs one collective `iters` times; returns wrong results found. */
static int Run(const char* name, long bytes, int iters, double* seconds, double* worked) {
  const long n = bytes / 8 > 0 ? bytes / 8 : 1; /* doubles for reductions */
  double* dsend = malloc(n * 8);
  double* drecv = malloc(n * 8);
  unsigned char* bsend = malloc((size_t)bytes * size + 1);
  unsigned char* brecv = malloc((size_t)bytes * size + 1);
  /* Every rank's bytes, computed once: the loop refreshes send buffers with
   * memcpy, so a result left over from an earlier call cannot pass the
   * check, and the refresh costs little next to the collective. */
  unsigned char* pattern = malloc((size_t)bytes * size + 1);
  for (int r = 0; r < size; ++r)
    for (long i = 0; i < bytes; ++i) pattern[r * bytes + i] = Byte(r, i);
  for (long i = 0; i < n; ++i) dsend[i] = Val(rank, i);
  const int root = root_arg >= 0 ? root_arg % size : size - 1;
  int wrong = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  *worked = 0;
  for (int it = 0; it < iters; ++it) {
    *worked += WorkBefore(it);
    if (!strcmp(name, "allreduce")) {
      MPI_Allreduce(dsend, drecv, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(name, "reduce")) {
      MPI_Reduce(dsend, drecv, (int)n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    } else if (!strcmp(name, "bcast")) {
      if (rank == root) memcpy(brecv, pattern + (size_t)root * bytes, (size_t)bytes);
      MPI_Bcast(brecv, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD);
    } else if (!strcmp(name, "gather")) {
      memcpy(bsend, pattern + (size_t)rank * bytes, (size_t)bytes);
      MPI_Gather(bsend, (int)bytes, MPI_BYTE, brecv, (int)bytes, MPI_BYTE, root,
                 MPI_COMM_WORLD);
    } else if (!strcmp(name, "scatter")) {
      if (rank == root) memcpy(bsend, pattern, (size_t)bytes * size);
      MPI_Scatter(bsend, (int)bytes, MPI_BYTE, brecv, (int)bytes, MPI_BYTE, root,
                  MPI_COMM_WORLD);
    } else if (!strcmp(name, "allgather")) {
      memcpy(bsend, pattern + (size_t)rank * bytes, (size_t)bytes);
      MPI_Allgather(bsend, (int)bytes, MPI_BYTE, brecv, (int)bytes, MPI_BYTE,
                    MPI_COMM_WORLD);
    } else {
      if (rank == 0) fprintf(stderr, "collective_mix: unknown collective %s\n", name);
      return 1;
    }
  }
  *seconds = (MPI_Wtime() - t0) / iters;
  if (!strcmp(name, "allreduce")) wrong += CheckDoubles(name, drecv, n, 0, root, 1);
  if (!strcmp(name, "reduce")) wrong += CheckDoubles(name, drecv, n, 1, root, 1);
  if (!strcmp(name, "bcast")) wrong += CheckBytes(name, brecv, bytes, root);
  if (!strcmp(name, "scatter")) wrong += CheckBytes(name, brecv, bytes, rank);
  if (!strcmp(name, "gather") && rank == root)
    for (int r = 0; r < size; ++r) wrong += CheckBytes(name, brecv + r * bytes, bytes, r);
  if (!strcmp(name, "allgather"))
    for (int r = 0; r < size; ++r) wrong += CheckBytes(name, brecv + r * bytes, bytes, r);
  free(dsend); free(drecv); free(bsend); free(brecv); free(pattern);
  return wrong;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long bytes = 65536;
  int iters = 200, warmup = 0;
  char collectives[256] = "allreduce,bcast,reduce,gather,scatter,allgather";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--bytes")) bytes = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--iters")) iters = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--work")) work_us = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--root")) root_arg = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--warmup")) warmup = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--collectives")) {
      strncpy(collectives, argv[i + 1], sizeof collectives - 1);
    }
  }
  if (bytes < 1 || iters < 1 || work_us < 0 || warmup < 0) {
    if (rank == 0) {
      fprintf(stderr, "collective_mix: --bytes and --iters must be positive, --work not negative\n");
    }
    MPI_Finalize();
    return 2;
  }
  int wrong = 0;
  double total = 0;
  for (char* name = strtok(collectives, ","); name; name = strtok(NULL, ",")) {
    double seconds = 0, worked = 0, first = 0;
    if (warmup > 0) {
      wrong += Run(name, bytes, warmup, &first, &worked);
      double slowest_first = 0;
      MPI_Reduce(&first, &slowest_first, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      first = slowest_first;
    }
    wrong += Run(name, bytes, iters, &seconds, &worked);
    double slowest = 0, most_work = 0;
    MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&worked, &most_work, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    /* Beyond the work: what the collectives cost the loop. */
    if (rank == 0 && work_us > 0) {
      slowest -= most_work / iters;
      if (slowest < 0) slowest = 0;
    }
    total += slowest * iters;
    if (rank == 0) {
      printf("%-10s %8ld B  %10.2f us/call", name, bytes, slowest * 1e6);
      if (warmup > 0) printf("  (first %d: %.2f us/call)", warmup, first * 1e6);
      printf("\n");
    }
  }
  int all_wrong = 0;
  MPI_Allreduce(&wrong, &all_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("total %.3f ms, results %s\n", total * 1e3, all_wrong ? "WRONG" : "verified");
  }
  MPI_Finalize();
  return all_wrong ? 1 : 0;
}
