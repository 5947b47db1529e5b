// Which algorithms a campaign times in the regimes besides sync, and how
// long (bench/regimes.h times them). No MPI: every rank computes the same
// answer from the same medians.
#ifndef COLLTUNE_BENCH_REGIME_PLAN_H_
#define COLLTUNE_BENCH_REGIME_PLAN_H_

#include <cstddef>
#include <vector>

#include "common/catalog.h"
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
  // repetition compares them as well as one back to back does). Default
  // alone (no candidate left) gets `min_reps`: its samples only complete
  // the point.
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
  // Regime specialists, for regime switches (daemon/engine.h): besides
  // those candidates, every candidate whose synchronized median is within
  // `specialist_prune` x default's is screened in each regime with one
  // short repetition, and the `specialists` fastest there, if faster than default
  // by a tenth, are timed with the others. 0: none screened.
  int specialists = 1;
  double specialist_prune = 3.0;
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

// The algorithms (indices into `sync_medians`, 0 being default) to time in
// the other regimes: default, then the candidates within `prune` of default's
// synchronized median, fastest first, at most `max_candidates`. The medians
// are the same on every rank, so is the answer.
std::vector<size_t> RegimeCandidates(const RegimeOptions& o,
                                     const std::vector<double>& sync_medians);
// The same with each algorithm in a family (`family[i]`; default's is not
// read): each family gets its own `max_candidates`, and the answer is
// default, then the candidates by synchronized median. At a derived-datatype
// point the datatype forms (all a layout rule may name) and the plain
// candidates (timed so that a plain choice slower on that layout keeps
// default) are two families: plain candidates faster from a barrier would
// otherwise crowd the forms out of the other regimes, and a form never timed
// back to back can never be chosen.
std::vector<size_t> RegimeCandidates(const RegimeOptions& o,
                                     const std::vector<double>& sync_medians,
                                     const std::vector<int>& family);
// The families of RegimeCandidates: 1 for a datatype form, 0 for the rest.
std::vector<int> FamiliesOf(const std::vector<Algorithm>& algorithms);

// Of `algorithms` (default first) timed back to back as `samples`, default
// and those whose median is within `prune` of default's: the others are
// slower in one regime, so no other regime can make them win.
std::vector<Algorithm> RegimeSurvivors(const RegimeOptions& o,
                                       const std::vector<Algorithm>& algorithms,
                                       const std::vector<std::vector<double>>& samples);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_REGIME_PLAN_H_
