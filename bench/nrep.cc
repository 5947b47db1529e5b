#include "bench/nrep.h"

#include <algorithm>
#include <cmath>

#include "common/stats.h"

namespace colltune::bench {

std::vector<double> EstimateBudgets(Workload& smallest,
                                    const std::vector<Algorithm>& algorithms,
                                    Synchronizer& sync, const NrepOptions& o) {
  std::vector<double> budgets;
  for (Algorithm a : algorithms) {
    std::vector<double> latencies;
    double spent = 0;
    for (;;) {
      const int batch = latencies.empty() ? std::max(o.min_1b, 2) : 10;
      std::vector<double> more =
          sync.Time([&](int) { smallest.Run(a); }, batch);
      for (double v : more) spent += v;
      latencies.insert(latencies.end(), more.begin(), more.end());
      if (RelativeStandardError(latencies) < o.rse ||
          static_cast<int>(latencies.size()) >= o.max_1b ||
          spent >= o.max_seconds_1b) {
        break;
      }
    }
    budgets.push_back(spent);
  }
  return budgets;
}

std::vector<int> EstimateNrep(Workload& w,
                              const std::vector<Algorithm>& algorithms,
                              const std::vector<double>& budgets,
                              Synchronizer& sync, const NrepOptions& o) {
  const size_t k = algorithms.size();
  std::vector<std::vector<double>> pilot(k);
  // First batch, interleaved.
  std::vector<double> first = sync.Time(
      [&](int i) { w.Run(algorithms[i % k]); }, static_cast<int>(k) * o.b1);
  for (size_t i = 0; i < first.size(); ++i) pilot[i % k].push_back(first[i]);
  // A second batch for the algorithms still noisy.
  std::vector<size_t> noisy;
  for (size_t a = 0; a < k; ++a) {
    if (RelativeStandardError(pilot[a]) > o.pilot_rse) noisy.push_back(a);
  }
  if (!noisy.empty() && o.b2 > 0) {
    const size_t n = noisy.size();
    std::vector<double> second = sync.Time(
        [&](int i) { w.Run(algorithms[noisy[i % n]]); },
        static_cast<int>(n) * o.b2);
    for (size_t i = 0; i < second.size(); ++i) {
      pilot[noisy[i % n]].push_back(second[i]);
    }
  }
  std::vector<int> nrep(k);
  for (size_t a = 0; a < k; ++a) {
    const double fastest = *std::min_element(pilot[a].begin(), pilot[a].end());
    const double n = fastest > 0 ? std::ceil(budgets[a] / fastest) : o.max_nrep;
    nrep[a] = static_cast<int>(
        std::clamp<double>(n, o.floor, std::max(o.floor, o.max_nrep)));
  }
  return nrep;
}

}  // namespace colltune::bench
