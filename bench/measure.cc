#include "bench/measure.h"

#include <algorithm>
#include <cmath>

#include "bench/barrier.h"

namespace colltune::bench {

std::vector<double> Measure(Workload& w, Algorithm a, MPI_Comm comm,
                            const MeasureOptions& options, int* rc) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  *rc = MPI_SUCCESS;
  for (int i = 0; i < options.warmup; ++i) {
    DisseminationBarrier(comm);
    int e = w.Run(a);
    if (e != MPI_SUCCESS && *rc == MPI_SUCCESS) *rc = e;
  }
  // A pilot repetition decides, identically on every rank (the maximum over
  // ranks is agreed on), how many repetitions fit in the time cap.
  DisseminationBarrier(comm);
  double t0 = PMPI_Wtime();
  w.Run(a);
  double pilot = PMPI_Wtime() - t0, slowest = 0;
  PMPI_Allreduce(&pilot, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  int nrep = options.nrep;
  if (slowest > 0) {
    const double fit = options.max_seconds_per_point / slowest;
    if (fit < nrep) nrep = std::max(3, static_cast<int>(fit));
  }

  std::vector<double> local(nrep), global(rank == 0 ? nrep : 0);
  for (int i = 0; i < nrep; ++i) {
    DisseminationBarrier(comm);
    t0 = PMPI_Wtime();
    int e = w.Run(a);
    local[i] = PMPI_Wtime() - t0;
    if (e != MPI_SUCCESS && *rc == MPI_SUCCESS) *rc = e;
  }
  PMPI_Reduce(local.data(), global.data(), nrep, MPI_DOUBLE, MPI_MAX, 0, comm);
  return global;
}

}  // namespace colltune::bench
