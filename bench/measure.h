// Timing one benchmark point the way seed 004 (Algorithm 1) and ReproMPI do:
// before every repetition the ranks synchronize with the dissemination
// barrier; each rank times its own call; a repetition's latency is the
// maximum over ranks.
#ifndef COLLTUNE_BENCH_MEASURE_H_
#define COLLTUNE_BENCH_MEASURE_H_

#include <vector>

#include "bench/workload.h"

namespace colltune::bench {

struct MeasureOptions {
  int nrep = 30;        // repetitions per point (fewer if the time cap bites)
  int warmup = 2;       // untimed repetitions first
  double max_seconds_per_point = 2.0;
};

// Collective over `comm`. Returns the per-repetition latencies on rank 0
// (empty elsewhere); *rc gets the first MPI error of the algorithm.
std::vector<double> Measure(Workload& w, Algorithm a, MPI_Comm comm,
                            const MeasureOptions& options, int* rc);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_MEASURE_H_
