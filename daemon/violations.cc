// The guideline report: where the library is beaten by one of its own
// algorithms or a mock-up, or slower on a smaller message.
#include "daemon/engine.h"

#include <algorithm>
#include <optional>

#include "common/stats.h"
#include "daemon/series.h"

namespace colltune::daemon {

std::string_view ViolationKindName(ViolationKind k) {
  constexpr std::string_view kNames[] = {"guideline", "selection", "monotony"};  // the enum's order
  return kNames[static_cast<int>(k)];
}

namespace {

// `launches` (of algorithm a) against default's at one point, by the same
// two tests as the decisions', without the margin; nothing if not faster.
std::optional<ViolationFound> Faster(Collective c, int64_t bytes, int a,
                                     const Launches& launches, const Launches& def,
                                     const EngineOptions& options) {
  double p = MannWhitneyLess(launches.medians, def.medians);
  double paired;
  if (p > options.alpha && FasterInEveryLaunch(launches, options, &paired)) p = paired;
  if (p > options.alpha || launches.Median() <= 0) return std::nullopt;
  ViolationFound v;
  // Beaten by one of its own algorithms, the library chose badly; beaten by
  // a mock-up, it lacks a better implementation.
  v.kind = IsNative(static_cast<Algorithm>(a)) ? ViolationKind::kSelection
                                               : ViolationKind::kGuideline;
  v.collective = c;
  v.algorithm = static_cast<Algorithm>(a);
  v.msg_bytes = bytes;
  v.factor = def.Median() / launches.Median();
  v.p_value = p;
  v.launches = static_cast<int>(std::min(launches.medians.size(), def.medians.size()));
  return v;
}

}  // namespace

std::vector<ViolationFound> FindViolations(const std::vector<LaunchMedian>& points,
                                           const EngineOptions& options,
                                           const std::vector<Rule>& current) {
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
        if (auto v = Faster(coll, bytes, a, launches, *def, options)) {
          v->not_chosen = WhyNotChosen(a, series, def_series->second, options);
          v->table_algorithm = CurrentChoice(current, coll, bytes);
          out.push_back(*v);
        }
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
  // Seed 003's guidelines: the data of a derived datatype moves faster
  // packed (DGL2), or described by the type's normal form (DGL4), than the
  // library moves it described by the user's type.
  for (const auto& [group, sizes] : GroupLayouts(points)) {
    const auto& [c, layout_class, block_log2] = group;
    const Collective coll = static_cast<Collective>(c);
    for (const auto& [bytes, algorithms] : sizes) {
      auto def = algorithms.find(IndexOf(Algorithm::kDefault));
      if (def == algorithms.end()) continue;
      for (const auto& [a, series] : algorithms) {
        if (!IsDatatypeForm(static_cast<Algorithm>(a)) || series.sync().empty()) continue;
        if (auto v = Faster(coll, bytes, a, series.sync(), def->second.sync(), options)) {
          v->layout = {static_cast<LayoutClass>(layout_class),
                       static_cast<int8_t>(block_log2)};
          v->not_chosen = WhyNotChosen(a, series, def->second, options);
          v->table_algorithm = CurrentChoice(current, coll, bytes, v->layout);
          out.push_back(*v);
        }
      }
    }
  }
  return out;
}

}  // namespace colltune::daemon
