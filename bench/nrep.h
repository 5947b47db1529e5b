// How many repetitions a point needs: seed 004's answer to the NREP problem.
//
//  1. Per algorithm, repeat the smallest message (1 byte, or one element for
//     reductions) until the relative standard error of the latencies drops
//     below a threshold (default 1%): the time that took is the budget t1.
//  2. Per message size, run a pilot batch of b1 repetitions, and b2 more if
//     its RSE is above a second threshold; l is the smallest latency seen.
//     The size gets max(ceil(t1 / l), K) repetitions (capped): large messages,
//     whose relative noise is small, get few; small ones get many.
// Every figure is configurable. All decisions are taken from latencies that
// every rank holds identically, so all ranks agree on the counts.
#ifndef COLLTUNE_BENCH_NREP_H_
#define COLLTUNE_BENCH_NREP_H_

#include <vector>

#include "bench/sync.h"
#include "bench/workload.h"

namespace colltune::bench {

struct NrepOptions {
  double rse = 0.01;          // step 1 threshold
  int min_1b = 10;            // step 1: at least this many repetitions
  int max_1b = 5000;          // ... and at most
  double max_seconds_1b = 2;  // ... or this long
  int b1 = 5;
  int b2 = 5;
  double pilot_rse = 0.05;    // step 2 threshold for the second batch
  int floor = 5;              // K
  // At most this many (1000 before campaigns timed other regimes too: 200
  // keeps a campaign within the time it took then, docs/results-2026-11-26.md).
  int max_nrep = 200;
};

// Step 1: the time budget of each algorithm, from `smallest` (the 1-byte
// workload of the collective).
std::vector<double> EstimateBudgets(Workload& smallest,
                                    const std::vector<Algorithm>& algorithms,
                                    Synchronizer& sync, const NrepOptions& o);

// Step 2: repetitions for each algorithm at this workload's size.
std::vector<int> EstimateNrep(Workload& w,
                              const std::vector<Algorithm>& algorithms,
                              const std::vector<double>& budgets,
                              Synchronizer& sync, const NrepOptions& o);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_NREP_H_
