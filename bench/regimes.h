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

#include "bench/regime_plan.h"
#include "bench/workload.h"
#include "common/regime.h"

namespace colltune::bench {

// PlanRegimes from default's time per call back to back, measured here by
// one loop of default from a barrier (the slowest rank's time), a loop sized
// from default's synchronized median. Collective; the same on every rank.
RegimePlan PlanFromProbe(const RegimeOptions& o, Workload& w, int sync_reps_of_default,
                         double sync_median_of_default, MPI_Comm comm);

// Times each algorithm `reps` times in `regime` (loop or imbalance), after
// one untimed repetition each unless `warm` (they just ran at this point in
// another regime): the first loop of an algorithm in a process pays what a
// long job pays once (the library's buffers for messages that arrive early,
// colltune's shadow communicator), and a program's steady state is what
// repeats. Under imbalance each rank's delay before a call is
// uniform in [0, max_delay] (campaigns and evaluations use default's
// back-to-back time per call).
// Returns per-call seconds per algorithm, the same on every rank; rc[i] gets
// the first MPI error of algorithm i. `seed` must be the same on every rank.
std::vector<std::vector<double>> MeasureRegime(Workload& w,
                                               const std::vector<Algorithm>& algorithms,
                                               Regime regime, int reps, int calls,
                                               double max_delay, uint64_t seed,
                                               bool warm, MPI_Comm comm,
                                               std::vector<int>* rc);

// The candidates RegimeCandidates left out (`chosen`) that may still be a
// regime's specialist: within o.specialist_prune x default's synchronized
// median (`sync_medians`, default's first), no datatype form; none when
// o.specialists is 0.
std::vector<Algorithm> SpecialistCandidates(const RegimeOptions& o,
                                            const std::vector<Algorithm>& algorithms,
                                            const std::vector<double>& sync_medians,
                                            const std::vector<Algorithm>& chosen);

// Screens `others` in regime r (regime_plan.h, RegimeOptions::specialists):
// each timed with default in one repetition a quarter of plan.calls long;
// of those faster than default by a tenth there, the o.specialists fastest
// are appended to *series where not in it already. Nothing without
// `others`. Collective; the same on every rank (MeasureRegime's samples are).
void AddSpecialists(const RegimeOptions& o, Workload& w, const std::vector<Algorithm>& others,
                    Regime r, const RegimePlan& plan, double work, uint64_t seed, MPI_Comm comm,
                    std::vector<Algorithm>* series);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_REGIMES_H_
