// Measuring one benchmark point: its algorithms interleaved, repetition by
// repetition (round r runs every algorithm that still needs a repetition), so
// that drift in the machine's state (other load, frequency, placement)
// touches all of them alike. The order within each round is shuffled (with a
// seed every rank shares): a fixed order would hand the after-effects of one
// algorithm (skew in how ranks leave the next barrier) always to the same
// other one, a bias large enough on an oversubscribed node to make one
// algorithm look significantly slower than itself. A repetition's latency is
// the maximum over ranks (sync.h).
#ifndef COLLTUNE_BENCH_MEASURE_H_
#define COLLTUNE_BENCH_MEASURE_H_

#include <vector>

#include "bench/sync.h"
#include "bench/workload.h"

namespace colltune::bench {

// Runs each algorithm `warmup` times untimed, then nrep[i] timed times.
// `seed` must be the same on every rank. Returns each algorithm's latencies,
// on every rank; rc[i] gets the first MPI error of algorithm i.
std::vector<std::vector<double>> MeasureInterleaved(
    Workload& w, const std::vector<Algorithm>& algorithms,
    const std::vector<int>& nrep, int warmup, uint64_t seed,
    Synchronizer& sync, std::vector<int>* rc);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_MEASURE_H_
