// Timing a point in the regimes programs call collectives in
// (common/regime.h): back to back (loop) and after uneven work (imbalance),
// next to the synchronized repetitions of measure.h.
//
// A repetition is a loop of `calls` calls started from the benchmark's own
// barrier; its value is per call (regime.h says how imbalance subtracts the
// work). Algorithms are interleaved repetition by repetition in an order
// shuffled per round with a seed every rank shares, as measure.h does, and
// repetition r of every algorithm runs after the same per-rank delays (drawn
// from the seed and r, not the algorithm), so the imbalance each algorithm
// faces is the same.
#ifndef COLLTUNE_BENCH_REGIMES_H_
#define COLLTUNE_BENCH_REGIMES_H_

#include <cstdint>
#include <vector>

#include <mpi.h>

#include "bench/workload.h"
#include "common/regime.h"

namespace colltune::bench {

struct RegimeOptions {
  RegimeSet regimes = kEveryRegime;  // sync is always measured
  // A repetition is a loop long enough for back-to-back calls to reach
  // their steady state: about `loop_us` microseconds of default's own time
  // back to back (PlanFromProbe), `min_calls` to `max_calls` calls. Short loops
  // time a transient: ranks that leave early have not yet met the messages
  // piling up behind them, which at small sizes ranked algorithms that let
  // ranks run ahead (linear reduce, chain bcast) 2x faster in 70-call loops
  // and level or slower in loops of thousands, as programs run them.
  double loop_us = 1000;
  int min_calls = 4;
  int max_calls = 3000;
  // Repetitions per algorithm back to back: about as many calls as
  // default's synchronized repetitions, in these bounds; after uneven work,
  // whose repetitions cost more (the work), half as many, at least
  // `min_reps` (its delays are drawn alike for every algorithm, so a
  // repetition compares them as well as one back to back does).
  int min_reps = 3;
  int max_reps = 20;
  // Before the other regimes, candidates whose synchronized median is above
  // `prune` x default's are dropped, and of the rest at most
  // `max_candidates`, fastest first. A candidate replaces default only if it
  // is at most a few per cent slower than default in every regime, the
  // synchronized one included (daemon/engine.h), so one that much slower
  // here cannot win whatever the other regimes say.
  double prune = 1.10;
  int max_candidates = 2;
};

// How an algorithm is timed in the regimes other than sync, from default's
// synchronized repetitions and its time per call back to back (seconds;
// its synchronized median serves as a first guess).
struct RegimePlan {
  int reps = 0;            // back to back
  int imbalance_reps = 0;  // after uneven work
  int calls = 0;
  int RepsIn(Regime r) const { return r == Regime::kImbalance ? imbalance_reps : reps; }
};
RegimePlan PlanRegimes(const RegimeOptions& o, int sync_reps_of_default,
                       double seconds_per_call_of_default);

// PlanRegimes from default's time per call back to back, measured here by
// one loop of default from a barrier (the slowest rank's time), a loop sized
// from default's synchronized median. Collective; the same on every rank.
RegimePlan PlanFromProbe(const RegimeOptions& o, Workload& w, int sync_reps_of_default,
                         double sync_median_of_default, MPI_Comm comm);

// The algorithms (indices into `sync_medians`, 0 being default) to time in
// the other regimes: default, then the candidates within `prune` of default's
// synchronized median, fastest first, at most `max_candidates`. The medians
// are the same on every rank, so is the answer.
std::vector<size_t> RegimeCandidates(const RegimeOptions& o,
                                     const std::vector<double>& sync_medians);

// Times each algorithm `reps` times in `regime` (loop or imbalance), after
// one untimed repetition each: the first loop of an algorithm in a process
// pays what a long job pays once (the library's buffers for messages that
// arrive early, colltune's shadow communicator), and a program's steady
// state is what repeats. Under imbalance each rank's delay before a call is
// uniform in [0, max_delay] (campaigns and evaluations use default's
// back-to-back time per call).
// Returns per-call seconds per algorithm, the same on every rank; rc[i] gets
// the first MPI error of algorithm i. `seed` must be the same on every rank.
std::vector<std::vector<double>> MeasureRegime(Workload& w,
                                               const std::vector<Algorithm>& algorithms,
                                               Regime regime, int reps, int calls,
                                               double max_delay, uint64_t seed,
                                               MPI_Comm comm, std::vector<int>* rc);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_REGIMES_H_
