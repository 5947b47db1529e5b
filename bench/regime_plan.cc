#include "bench/regime_plan.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/stats.h"

namespace colltune::bench {

RegimePlan PlanRegimes(const RegimeOptions& o, int sync_reps_of_default,
                       double seconds_per_call_of_default) {
  RegimePlan p;
  const int least = std::max(1, o.min_calls), most = std::max(least, o.max_calls);
  const double per_loop = o.loop_us * 1e-6;
  p.calls = seconds_per_call_of_default > 0
                ? static_cast<int>(std::clamp<double>(
                      std::ceil(per_loop / seconds_per_call_of_default), least, most))
                : least;
  p.reps = std::clamp((sync_reps_of_default + p.calls - 1) / p.calls, o.min_reps,
                      std::max(o.min_reps, o.max_reps));
  p.imbalance_reps = std::max(o.min_reps, (p.reps + 1) / 2);
  return p;
}

std::vector<size_t> RegimeCandidates(const RegimeOptions& o,
                                     const std::vector<double>& sync_medians) {
  return RegimeCandidates(o, sync_medians, std::vector<int>(sync_medians.size(), 0));
}

std::vector<size_t> RegimeCandidates(const RegimeOptions& o,
                                     const std::vector<double>& sync_medians,
                                     const std::vector<int>& family) {
  std::vector<size_t> out;
  if (sync_medians.empty()) return out;
  out.push_back(0);
  std::vector<size_t> rest;
  for (size_t i = 1; i < sync_medians.size(); ++i) {
    if (sync_medians[i] > 0 && sync_medians[i] <= o.prune * sync_medians[0]) {
      rest.push_back(i);
    }
  }
  std::stable_sort(rest.begin(), rest.end(), [&](size_t a, size_t b) {
    return sync_medians[a] < sync_medians[b];
  });
  std::map<int, int> taken;  // family -> candidates so far
  for (size_t i : rest) {
    const int f = i < family.size() ? family[i] : 0;
    if (taken[f] < o.max_candidates) {
      ++taken[f];
      out.push_back(i);
    }
  }
  return out;
}

std::vector<int> FamiliesOf(const std::vector<Algorithm>& algorithms) {
  std::vector<int> out;
  out.reserve(algorithms.size());
  for (Algorithm a : algorithms) out.push_back(IsDatatypeForm(a) ? 1 : 0);
  return out;
}

std::vector<Algorithm> RegimeSurvivors(const RegimeOptions& o,
                                       const std::vector<Algorithm>& algorithms,
                                       const std::vector<std::vector<double>>& samples) {
  std::vector<Algorithm> out;
  if (algorithms.empty() || samples.size() != algorithms.size()) return algorithms;
  const double def = Median(samples[0]);
  out.push_back(algorithms[0]);
  for (size_t i = 1; i < algorithms.size(); ++i) {
    const double m = Median(samples[i]);
    if (def > 0 && m > 0 && m <= o.prune * def) out.push_back(algorithms[i]);
  }
  return out;
}

}  // namespace colltune::bench
