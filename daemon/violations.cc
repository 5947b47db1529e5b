// The guideline report: where the library is beaten by one of its own
// algorithms or a mock-up, or slower on a smaller message.
#include "daemon/engine.h"

#include <algorithm>

#include "common/stats.h"
#include "daemon/series.h"

namespace colltune::daemon {

std::string_view ViolationKindName(ViolationKind k) {
  constexpr std::string_view kNames[] = {"guideline", "selection", "monotony"};  // the enum's order
  return kNames[static_cast<int>(k)];
}

std::vector<ViolationFound> FindViolations(
    const std::vector<LaunchMedian>& points, const EngineOptions& options) {
  std::vector<ViolationFound> out;
  for (const auto& [c, sizes] : Group(points)) {
    const Collective coll = static_cast<Collective>(c);
    const Launches* previous = nullptr;
    int64_t previous_bytes = 0;
    for (const auto& [bytes, algorithms] : sizes) {
      auto def_series = algorithms.find(IndexOf(Algorithm::kDefault));
      if (def_series == algorithms.end()) continue;
      // Guidelines are about latency: the synchronized regime's.
      const Launches* def = &def_series->second.sync();
      for (const auto& [a, series] : algorithms) {
        const Launches& launches = series.sync();
        if (a == IndexOf(Algorithm::kDefault) || launches.empty()) continue;
        // The same two tests as the decisions', without the margin.
        double p = MannWhitneyLess(launches.medians, def->medians);
        double paired;
        if (p > options.alpha && FasterInEveryLaunch(launches, options, &paired)) {
          p = paired;
        }
        if (p > options.alpha || launches.Median() <= 0) continue;
        ViolationFound v;
        // Beaten by one of its own algorithms, the library chose badly;
        // beaten by a mock-up, it lacks a better implementation.
        v.kind = IsNative(static_cast<Algorithm>(a)) ? ViolationKind::kSelection
                                                     : ViolationKind::kGuideline;
        v.collective = coll;
        v.algorithm = static_cast<Algorithm>(a);
        v.msg_bytes = bytes;
        v.factor = def->Median() / launches.Median();
        v.p_value = p;
        v.launches = static_cast<int>(
            std::min(launches.medians.size(), def->medians.size()));
        out.push_back(v);
      }
      if (previous != nullptr) {
        const double p = MannWhitneyLess(def->medians, previous->medians);
        if (p <= options.alpha && def->Median() > 0) {
          ViolationFound v;
          v.kind = ViolationKind::kMonotony;
          v.collective = coll;
          v.msg_bytes = previous_bytes;
          v.larger_bytes = bytes;
          v.factor = previous->Median() / def->Median();
          v.p_value = p;
          v.launches = static_cast<int>(
              std::min(previous->medians.size(), def->medians.size()));
          out.push_back(v);
        }
      }
      previous = def;
      previous_bytes = bytes;
    }
  }
  return out;
}

}  // namespace colltune::daemon
