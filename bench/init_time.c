/* colltune-init-time: how long MPI_Init takes as a job sees it.
 *
 * Every rank reads the clock around its MPI_Init; rank 0 prints the slowest
 * rank's time, "init_ms X" (scripts/init_overhead.sh compares it with and
 * without the shim and a daemon). */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double NowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  const double start = NowMs();
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  double mine = NowMs() - start, slowest = 0;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("init_ms %.3f\n", slowest);
  MPI_Finalize();
  return 0;
}
