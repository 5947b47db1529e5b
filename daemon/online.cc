#include "daemon/online.h"

#include <cmath>
#include <map>
#include <tuple>

#include "common/stats.h"
#include "daemon/ranges.h"
#include "daemon/series.h"

namespace colltune::daemon {

void ApplyOnline(const std::vector<JobMedian>& online,
                 const std::vector<Rule>& current, const EngineOptions& o,
                 std::vector<Decision>* decisions) {
  // (collective, bucket min) -> algorithm -> job -> median
  std::map<std::pair<int, uint64_t>, std::map<int, std::map<int64_t, double>>> by;
  // ... -> algorithm -> the uids behind its jobs; a job whose sender nobody
  // vouched for adds none (anyone could have sent it, as often as they
  // liked).
  std::map<std::pair<int, uint64_t>, std::map<int, std::set<int64_t>>> principals;
  std::map<std::pair<int, uint64_t>, uint64_t> bucket_max;
  // ... -> algorithm -> job -> the job's entry (for the revert rule)
  std::map<std::pair<int, uint64_t>, std::map<int, std::map<int64_t, const JobMedian*>>>
      entries;
  for (const JobMedian& m : online) {
    if (InfoOf(m.collective).key == SizeKey::kNone && m.min_bytes != 0) continue;
    by[{IndexOf(m.collective), m.min_bytes}][IndexOf(m.algorithm)][m.job] =
        m.median_seconds;
    entries[{IndexOf(m.collective), m.min_bytes}][IndexOf(m.algorithm)][m.job] = &m;
    std::set<int64_t>& uids = principals[{IndexOf(m.collective), m.min_bytes}][IndexOf(m.algorithm)];
    if (m.uid >= 0) uids.insert(m.uid);
    bucket_max[{IndexOf(m.collective), m.min_bytes}] = m.max_bytes;
  }
  for (const auto& [cell, algorithms] : by) {
    const Collective c = static_cast<Collective>(cell.first);
    const uint64_t lo = cell.second, hi = bucket_max[cell];
    // The choice jobs ran in this bucket: the current table's, at the
    // bucket's geometric middle (the campaign's when there is no table).
    const uint64_t mid = lo == 0 ? 0
                                 : static_cast<uint64_t>(std::sqrt(
                                       static_cast<double>(lo) * static_cast<double>(hi)));
    // Back to default within one job (docs/architecture.md): the campaign's choice for
    // the bucket against default's explored calls in the same job.
    const Algorithm campaign_choice = DecidedAt(*decisions, c, mid);
    if (o.revert_min_calls > 0 && campaign_choice != Algorithm::kDefault) {
      const auto& cell_entries = entries[cell];
      auto chosen = cell_entries.find(IndexOf(campaign_choice));
      auto def = cell_entries.find(IndexOf(Algorithm::kDefault));
      const JobMedian* worst_job = nullptr;
      double worst = 0;  // the choice's median over default's, largest
      if (chosen != cell_entries.end() && def != cell_entries.end()) {
        for (const auto& [job, x] : chosen->second) {
          auto d = def->second.find(job);
          if (d == def->second.end()) continue;
          const JobMedian& y = *d->second;
          // Reports nobody vouched for (uid -1) change no table.
          if (x->uid < 0 || x->timed_calls - x->explored_calls < o.revert_min_calls ||
              y.explored_calls < o.revert_min_calls || y.median_seconds <= 0) {
            continue;
          }
          const double ratio = x->median_seconds / y.median_seconds;
          if (ratio >= 1 + MarginOf(IndexOf(campaign_choice), o) && ratio > worst) {
            worst = ratio;
            worst_job = x;
          }
        }
      }
      if (worst_job != nullptr) {
        Decision d;
        d.rule.collective = c;
        d.rule.min_bytes = lo;
        d.rule.max_bytes = hi;
        d.rule.algorithm = Algorithm::kDefault;
        d.rule.speedup = worst;  // default's time against the choice's, that job
        d.evidence.source = Source::kOnline;
        d.evidence.launches_default = 1;
        d.evidence.launches_algorithm = 1;
        Overlay(d, decisions);
        continue;
      }
    }
    const Algorithm incumbent =
        current.empty() ? DecidedAt(*decisions, c, mid)
                        : CurrentChoice(current, c, static_cast<int64_t>(mid));
    std::map<int, std::vector<double>> medians;
    for (const auto& [a, jobs] : algorithms) {
      if (static_cast<int>(jobs.size()) < o.min_jobs) continue;
      // One uid's reports alone never count, however many jobs they name.
      if (static_cast<int>(principals[cell][a].size()) < o.min_uids) continue;
      for (const auto& [job, median] : jobs) medians[a].push_back(median);
    }
    auto inc = medians.find(IndexOf(incumbent));
    if (inc == medians.end()) continue;  // the campaign decides this bucket
    int best = inc->first;
    for (const auto& [a, m] : medians) {
      if (Median(m) < Median(medians[best])) best = a;
    }
    Decision d;
    d.rule.collective = c;
    d.rule.min_bytes = lo;
    d.rule.max_bytes = hi;
    d.rule.algorithm = incumbent;
    d.evidence.source = Source::kOnline;
    double p = 1;
    if (best != inc->first &&
        SignificantlyFaster(medians[best], inc->second, o.alpha, MarginOf(best, o), &p)) {
      d.rule.algorithm = static_cast<Algorithm>(best);
      d.evidence.p_value = p;
    } else if (incumbent != Algorithm::kDefault &&
               medians.count(IndexOf(Algorithm::kDefault))) {
      // The incumbent stays; its evidence is its test against default.
      SignificantlyFaster(inc->second, medians[IndexOf(Algorithm::kDefault)],
                          o.alpha, 0, &p);
      d.evidence.p_value = p;
    }
    const int chosen = IndexOf(d.rule.algorithm);
    auto def = medians.find(IndexOf(Algorithm::kDefault));
    d.evidence.launches_algorithm = static_cast<int>(medians[chosen].size());
    if (def != medians.end()) {
      d.evidence.launches_default = static_cast<int>(def->second.size());
      const double t = Median(medians[chosen]);
      if (t > 0) d.rule.speedup = Median(def->second) / t;
    }
    if (DecidedThroughout(*decisions, c, lo, hi, d.rule.algorithm)) {
      continue;  // online evidence agrees with the campaign's ranges here
    }
    Overlay(d, decisions);
  }
}

}  // namespace colltune::daemon
