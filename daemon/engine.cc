#include "daemon/engine.h"

#include <cmath>
#include <map>

#include "common/stats.h"

namespace colltune::daemon {
namespace {

struct Decision {
  int64_t bytes;
  Algorithm algorithm;
  double speedup;
};

// The first size of the range that belongs to `hi` rather than `lo`: the
// geometric midpoint, rounded up, kept inside (lo, hi].
uint64_t Boundary(int64_t lo, int64_t hi) {
  const double mid = std::sqrt(static_cast<double>(lo) * static_cast<double>(hi));
  uint64_t b = static_cast<uint64_t>(std::ceil(mid));
  if (b <= static_cast<uint64_t>(lo)) b = static_cast<uint64_t>(lo) + 1;
  if (b > static_cast<uint64_t>(hi)) b = static_cast<uint64_t>(hi);
  return b;
}

double MedianOf(const std::map<int64_t, double>& launches) {
  std::vector<double> v;
  v.reserve(launches.size());
  for (const auto& [launch, median] : launches) v.push_back(median);
  return Median(std::move(v));
}

// Faster than default in every launch that measured both.
bool WinsEveryLaunch(const std::map<int64_t, double>& candidate,
                     const std::map<int64_t, double>& def) {
  for (const auto& [launch, t] : candidate) {
    auto d = def.find(launch);
    if (d != def.end() && t >= d->second) return false;
  }
  return true;
}

}  // namespace

std::vector<Rule> ComputeRules(const std::vector<LaunchMedian>& points,
                               const EngineOptions& options) {
  // collective -> size -> algorithm -> launch -> median
  std::map<int, std::map<int64_t, std::map<int, std::map<int64_t, double>>>> by;
  for (const LaunchMedian& p : points) {
    if (InfoOf(p.collective).irregular) continue;
    by[IndexOf(p.collective)][p.msg_bytes][IndexOf(p.algorithm)][p.launch] =
        p.median_seconds;
  }
  std::vector<Rule> rules;
  for (const auto& [c, sizes] : by) {
    std::vector<Decision> decided;
    for (const auto& [bytes, algorithms] : sizes) {
      auto def = algorithms.find(IndexOf(Algorithm::kDefault));
      if (def == algorithms.end()) continue;
      const double t_default = MedianOf(def->second);
      Decision d{bytes, Algorithm::kDefault, 1.0};
      double t_best = t_default;
      for (const auto& [a, launches] : algorithms) {
        const double t = MedianOf(launches);
        if (t < t_best && WinsEveryLaunch(launches, def->second)) {
          t_best = t;
          d.algorithm = static_cast<Algorithm>(a);
        }
      }
      if (d.algorithm != Algorithm::kDefault &&
          t_best <= (1 - options.margin) * t_default && t_best > 0) {
        d.speedup = t_default / t_best;
      } else {
        d.algorithm = Algorithm::kDefault;
      }
      decided.push_back(d);
    }
    // Runs of equal decisions become one range; its speedup is the
    // geometric mean over the run's sizes.
    for (size_t i = 0; i < decided.size();) {
      size_t j = i;
      double log_sum = 0;
      while (j < decided.size() && decided[j].algorithm == decided[i].algorithm) {
        log_sum += std::log(decided[j].speedup);
        ++j;
      }
      Rule r;
      r.collective = static_cast<Collective>(c);
      r.algorithm = decided[i].algorithm;
      r.speedup = std::exp(log_sum / static_cast<double>(j - i));
      r.min_bytes = i == 0 ? 0 : Boundary(decided[i - 1].bytes, decided[i].bytes);
      r.max_bytes = j == decided.size()
                        ? kNoUpperBound
                        : Boundary(decided[j - 1].bytes, decided[j].bytes) - 1;
      rules.push_back(r);
      i = j;
    }
  }
  return rules;
}

bool SameDecisions(const std::vector<Rule>& a, const std::vector<Rule>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].collective != b[i].collective ||
        a[i].algorithm != b[i].algorithm || a[i].min_bytes != b[i].min_bytes ||
        a[i].max_bytes != b[i].max_bytes) {
      return false;
    }
  }
  return true;
}

}  // namespace colltune::daemon
