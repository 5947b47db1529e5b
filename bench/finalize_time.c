/* colltune-finalize-time: how long MPI_Finalize takes as a job sees it,
 * after a loop of collectives (so that the shim has timings to report).
 *
 * Rank 0, which writes and sends the job's report, prints its own
 * MPI_Finalize time, "finalize_ms X" (scripts/finalize_overhead.sh compares
 * it with reporting on and off). Usage: colltune-finalize-time [calls] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double NowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  const int calls = argc > 1 ? atoi(argv[1]) : 5000;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double in[64] = {0}, out[64];
  for (int i = 0; i < calls; ++i) {
    MPI_Allreduce(in, out, 1 + i % 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = NowMs();
  MPI_Finalize();
  if (rank == 0) printf("finalize_ms %.3f\n", NowMs() - start);
  return 0;
}
