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

// Why a violation's faster algorithm does not replace default: the
// campaign's tests, else the held-out launches at the point (`held`, maybe
// null), else nothing.
std::string NotChosen(int a, const Series& x, const Series& def, const BySize* held,
                      int64_t bytes, const EngineOptions& o) {
  std::string why = WhyNotChosen(a, x, def, o);
  if (!why.empty() || held == nullptr) return why;
  const auto at = held->find(bytes);
  return at == held->end() ? "" : HeldOutVerdict(at->second, a, o);
}

template <class Groups, class Key>
const BySize* Find(const Groups& groups, const Key& key) {
  const auto it = groups.find(key);
  return it == groups.end() ? nullptr : &it->second;
}

}  // namespace

std::vector<ViolationFound> FindViolations(const std::vector<LaunchMedian>& all_points,
                                           const EngineOptions& options,
                                           const std::vector<Rule>& current) {
  // Violations are found in the campaigns' launches; held-out launches
  // only say why a faster algorithm was taken back.
  std::vector<LaunchMedian> points, held_out_points;
  for (const LaunchMedian& p : all_points) (p.held_out ? held_out_points : points).push_back(p);
  const std::map<int, BySize> held = Group(held_out_points);
  const std::map<LayoutGroup, BySize> held_layouts = GroupLayouts(held_out_points);
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
          v->not_chosen = NotChosen(a, series, def_series->second, Find(held, c), bytes,
                                    options);
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
          v->not_chosen =
              NotChosen(a, series, def->second, Find(held_layouts, group), bytes, options);
          v->table_algorithm = CurrentChoice(current, coll, bytes, v->layout);
          out.push_back(*v);
        }
      }
    }
  }
  return out;
}

}  // namespace colltune::daemon
