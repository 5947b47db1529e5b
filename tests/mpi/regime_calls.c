/* A job that calls one collective in one regime, for the regime switch's
 * test (tests/mpi/regime_switch_test.sh):
 *
 *   regime_calls --mode loop|uneven|even|barrier --coll allreduce|bcast|allgather
 *                [--bytes B] [--iters N] [--work US]
 *
 * loop: back to back. uneven: before each call every rank busy-waits a time
 * of its own, uniform in [0, US]. even: every rank busy-waits US before each
 * call. barrier: an MPI_Barrier after each call (as OSU's benchmarks do). The data changes with the call; every 7th call and the last are
 * checked on every rank. Prints "regime_calls: ok" or exits 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void Busy(double us) {
  const double until = MPI_Wtime() + us * 1e-6;
  while (MPI_Wtime() < until) {
  }
}

/* Reproducible per (rank, call), different between ranks. */
static double Draw(long it) {
  unsigned long long z = ((unsigned long long)rank << 32) + (unsigned long long)it;
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = "loop";
  const char* coll = "allreduce";
  long bytes = 8192, iters = 2000;
  double work = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--mode")) mode = argv[i + 1];
    else if (!strcmp(argv[i], "--coll")) coll = argv[i + 1];
    else if (!strcmp(argv[i], "--bytes")) bytes = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--iters")) iters = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--work")) work = atof(argv[i + 1]);
  }
  const long n = bytes / 8 > 0 ? bytes / 8 : 1;
  double* send = malloc(n * 8);
  double* recv = malloc(n * 8 * size);
  int wrong = 0;
  for (long it = 0; it < iters; ++it) {
    if (!strcmp(mode, "uneven")) Busy(work * Draw(it));
    else if (!strcmp(mode, "even")) Busy(work);
    else if (!strcmp(mode, "barrier") && it > 0) MPI_Barrier(MPI_COMM_WORLD);
    const int check = it % 7 == 0 || it == iters - 1;
    if (check) for (long i = 0; i < n; ++i) send[i] = (double)(rank + 1) * (i % 13 + it % 5);
    if (!strcmp(coll, "allreduce")) {
      MPI_Allreduce(send, recv, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      for (long i = 0; check && i < n; ++i) {
        if (recv[i] != (double)size * (size + 1) / 2 * (i % 13 + it % 5)) ++wrong;
      }
    } else if (!strcmp(coll, "bcast")) {
      const int root = (int)(it % size);
      if (rank == root) memcpy(recv, send, n * 8);
      MPI_Bcast(recv, (int)n, MPI_DOUBLE, root, MPI_COMM_WORLD);
      for (long i = 0; check && i < n; ++i) {
        if (recv[i] != (double)(root + 1) * (i % 13 + it % 5)) ++wrong;
      }
    } else if (!strcmp(coll, "allgather")) {
      MPI_Allgather(send, (int)n, MPI_DOUBLE, recv, (int)n, MPI_DOUBLE, MPI_COMM_WORLD);
      for (int r = 0; check && r < size; ++r) {
        for (long i = 0; i < n; ++i) {
          if (recv[r * n + i] != (double)(r + 1) * (i % 13 + it % 5)) ++wrong;
        }
      }
    } else {
      if (rank == 0) fprintf(stderr, "regime_calls: unknown collective %s\n", coll);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  int all = 0;
  MPI_Allreduce(&wrong, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all ? "regime_calls: %d WRONG\n" : "regime_calls: ok\n", all);
  free(send);
  free(recv);
  MPI_Finalize();
  return all ? 1 : 0;
}
