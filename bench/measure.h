// Timing one benchmark point the way seed 004 (Algorithm 1) and ReproMPI do:
// before every repetition the ranks synchronize with the dissemination
// barrier; each rank times its own call; a repetition's latency is the
// maximum over ranks. The algorithms of a point are measured interleaved,
// repetition by repetition, so that drift in the machine's state (other
// load, frequency, placement) touches all of them alike.
#ifndef COLLTUNE_BENCH_MEASURE_H_
#define COLLTUNE_BENCH_MEASURE_H_

#include <vector>

#include "bench/workload.h"

namespace colltune::bench {

struct MeasureOptions {
  int nrep = 30;        // repetitions per algorithm (fewer if the cap bites)
  int warmup = 2;       // untimed repetitions of each algorithm first
  double max_seconds_per_point = 2.0;  // all algorithms of the point together
};

// Collective over `comm`. Returns, on rank 0, the per-repetition latencies of
// each algorithm (empty elsewhere); rc[i] gets the first MPI error of
// algorithm i.
std::vector<std::vector<double>> Measure(Workload& w,
                                         const std::vector<Algorithm>& algorithms,
                                         MPI_Comm comm,
                                         const MeasureOptions& options,
                                         std::vector<int>* rc);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_MEASURE_H_
