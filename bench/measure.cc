#include "bench/measure.h"

#include <algorithm>

#include "bench/barrier.h"

namespace colltune::bench {

std::vector<std::vector<double>> Measure(Workload& w,
                                         const std::vector<Algorithm>& algorithms,
                                         MPI_Comm comm,
                                         const MeasureOptions& options,
                                         std::vector<int>* rc) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  const size_t k = algorithms.size();
  rc->assign(k, MPI_SUCCESS);
  auto run = [&](size_t a) {
    const int e = w.Run(algorithms[a]);
    if (e != MPI_SUCCESS && (*rc)[a] == MPI_SUCCESS) (*rc)[a] = e;
  };
  for (int i = 0; i < options.warmup; ++i) {
    for (size_t a = 0; a < k; ++a) {
      DisseminationBarrier(comm);
      run(a);
    }
  }
  // A pilot round decides, identically on every rank (the maximum over ranks
  // is agreed on), how many rounds fit in the time cap.
  double pilot = 0, slowest = 0;
  for (size_t a = 0; a < k; ++a) {
    DisseminationBarrier(comm);
    const double t0 = PMPI_Wtime();
    run(a);
    pilot += PMPI_Wtime() - t0;
  }
  PMPI_Allreduce(&pilot, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  int nrep = options.nrep;
  if (slowest > 0) {
    const double fit = options.max_seconds_per_point / slowest;
    if (fit < nrep) nrep = std::max(3, static_cast<int>(fit));
  }

  std::vector<double> local(k * nrep);  // [algorithm][repetition]
  for (int i = 0; i < nrep; ++i) {
    for (size_t a = 0; a < k; ++a) {
      DisseminationBarrier(comm);
      const double t0 = PMPI_Wtime();
      run(a);
      local[a * nrep + i] = PMPI_Wtime() - t0;
    }
  }
  std::vector<double> global(rank == 0 ? k * nrep : 0);
  PMPI_Reduce(local.data(), global.data(), static_cast<int>(k * nrep),
              MPI_DOUBLE, MPI_MAX, 0, comm);
  std::vector<std::vector<double>> out(rank == 0 ? k : 0);
  for (size_t a = 0; a < out.size(); ++a) {
    out[a].assign(global.begin() + a * nrep, global.begin() + (a + 1) * nrep);
  }
  return out;
}

}  // namespace colltune::bench
