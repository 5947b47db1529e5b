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

// Stopping early what cannot win. With the library's own algorithms a point
// has twice the candidates, many of them far slower at that size; measuring
// each to full precision only to learn it lost is most of a campaign's time.
// After every `block` rounds, an algorithm with at least `min_samples`
// latencies whose lower quartile is above `factor` times the upper quartile
// of the best algorithm so far stops: three quarters of its repetitions are
// slower than three quarters of the best's by that factor, so it can be
// neither chosen (a winner must beat default by the margin) nor the oracle.
// Its median still comes from `min_samples` repetitions or more. Default is
// never stopped (every speedup is measured against it). Decisions use the
// latencies every rank holds, so every rank stops the same algorithms.
//
// Also stopped: an algorithm whose lower quartile is above `default_factor`
// times default's upper quartile. A candidate replaces default only if it
// is at most a few per cent slower than default in every regime, the
// synchronized one included (daemon/engine.h), so one that slow here can
// only lose.
struct EarlyStop {
  double factor = 0;  // 0: never stop early
  double default_factor = 0;  // 0: not against default
  int min_samples = 20;
  int block = 20;
};

// Runs each algorithm `warmup` times untimed, then nrep[i] timed times (fewer
// if `stop` ends it early; *stopped then counts it). `seed` must be the same
// on every rank. Returns each algorithm's latencies, on every rank; rc[i] gets
// the first MPI error of algorithm i.
std::vector<std::vector<double>> MeasureInterleaved(
    Workload& w, const std::vector<Algorithm>& algorithms,
    const std::vector<int>& nrep, int warmup, uint64_t seed,
    Synchronizer& sync, std::vector<int>* rc, const EarlyStop& stop = {},
    int* stopped = nullptr);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_MEASURE_H_
