// The evidence of one algorithm at one point: its per-launch medians in each
// regime, grouped by collective and size, and the tests the engine applies
// between two algorithms (docs/architecture.md says what they mean). Internal to the engine.
#ifndef COLLTUNE_DAEMON_SERIES_H_
#define COLLTUNE_DAEMON_SERIES_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/catalog.h"
#include "common/layout_class.h"
#include "common/regime.h"
#include "common/stats.h"
#include "common/table.h"
#include "daemon/engine.h"

namespace colltune::daemon {

// The launches that measured one algorithm at one size in one regime.
struct Launches {
  std::vector<double> medians;
  std::vector<int64_t> ids;    // per launch: the launch (LaunchMedian::launch)
  std::vector<double> within;  // per launch: p_faster_than_default
  std::vector<double> upper;   // per launch: upper quartile, 0 if unknown
  std::vector<double> lower;   // per launch: lower quartile, 0 if unknown
  std::set<int64_t> campaigns;
  void Add(const LaunchMedian& p) {
    medians.push_back(p.median_seconds);
    ids.push_back(p.launch);
    within.push_back(p.p_faster_than_default);
    upper.push_back(p.upper_quartile_seconds);
    lower.push_back(p.lower_quartile_seconds);
    campaigns.insert(p.campaign);
  }
  bool empty() const { return medians.empty(); }
  double Median() const { return colltune::Median(medians); }
  // The median over launches of the upper (lower) quartiles; 0 if any is
  // unknown.
  double UpperQuartile() const { return MedianIfAllKnown(upper); }
  double LowerQuartile() const { return MedianIfAllKnown(lower); }

 private:
  static double MedianIfAllKnown(const std::vector<double>& per_launch) {
    for (double v : per_launch) {
      if (v <= 0) return 0;
    }
    return colltune::Median(per_launch);  // 0 when empty
  }
};

// One algorithm at one point, in each regime it was timed in.
struct Series {
  std::array<Launches, kNumRegimes> by;
  const Launches& sync() const { return by[IndexOf(Regime::kSync)]; }
  const Launches& in(Regime r) const { return by[IndexOf(r)]; }
  void Add(const LaunchMedian& p) { by[IndexOf(p.regime)].Add(p); }
};

// The points whose launch measured default in every regime it declared:
// a launch cut short between regimes leaves its point out whole.
std::vector<const LaunchMedian*> CompletePoints(const std::vector<LaunchMedian>& points);

using BySize = std::map<int64_t, std::map<int, Series>>;  // size -> algorithm

// Regular collectives' points with contiguous data, by collective.
std::map<int, BySize> Group(const std::vector<LaunchMedian>& points);

// Points measured with derived-datatype data (problem "@<layout>"), by
// (collective, layout class, block_log2): the order of a table's layout rules.
using LayoutGroup = std::tuple<int, int, int>;
std::map<LayoutGroup, BySize> GroupLayouts(const std::vector<LaunchMedian>& points);

// Irregular collectives: (distribution, average block bytes) -> algorithm.
using ByPoint = std::map<std::pair<std::string, int64_t>, std::map<int, Series>>;

std::map<int, ByPoint> GroupIrregular(const std::vector<LaunchMedian>& points);

// The margin an algorithm must win by to replace another: the
// library's own algorithms, and datatype forms that only redescribe the data
// for them (RedescribesOnly), need less than mock-ups.
double MarginOf(int algorithm, const EngineOptions& o);

// x is significantly faster than y across launches, by `margin`.
bool Beats(const Launches& x, const Launches& y, double margin, const EngineOptions& o,
           double* p);

// The paired test against default: faster within every launch.
// *p is the intersection-union p-value, the largest of the launches'.
bool FasterInEveryLaunch(const Launches& x, const EngineOptions& o, double* p);

// x's median is below y's by at least o.min_saving (a time per call).
bool SavesEnough(const Launches& x, const Launches& y, const EngineOptions& o);

// x replaces default: significantly faster across launches or within every
// launch, and faster by the margin; or as fast and significantly steadier
// (docs/architecture.md). Either way saving o.min_saving a call (in the
// median, or for the steadier one in the upper quartile).
bool BeatsDefault(const Launches& x, const Launches& def, double margin,
                  const EngineOptions& o, double* p);

// Why algorithm `a`, timed as `x`, cannot replace default (timed as `def`)
// at one point by the engine's tests, in words ("slower back to back in one
// launch: 1.14x default's"); empty if it can. It may still not run there: a
// faster candidate, the incumbent's hysteresis or a layout where it loses
// can keep it out.
std::string WhyNotChosen(int a, const Series& x, const Series& def, const EngineOptions& o);

// How a regime's timings were taken, in a reason's words ("back to back").
const char* PhraseOf(Regime r);

// Held-out validation (docs/architecture.md): why the held-out launches
// take algorithm `a` back at one point (`at`: every algorithm's held-out
// series there), in words ("slower back to back in the held-out launches:
// median 1.12x default's"); empty where they do not: `a` is not slower than
// default beyond the held-out slack in any regime and faster over all of
// them, or the point lacks held-out launches of default and `a` to say.
std::string HeldOutVerdict(const std::map<int, Series>& at, int a, const EngineOptions& o);

// The same for a regime switch to `a`, which runs in regime `r` only: its
// median per-launch time over default's there, in the held-out launches,
// is more than the slack above 1.
std::string HeldOutSwitchVerdict(const std::map<int, Series>& at, int a, Regime r,
                                 const EngineOptions& o);

// What `current` decides for `bytes` of `c`: its plain rules, or those of
// a datatype layout.
Algorithm CurrentChoice(const std::vector<Rule>& current, Collective c,
                        int64_t bytes, const LayoutKey& layout = {});
// The switch `current`'s plain rules name for `bytes` of `c` in regime `r`
// (loop or imbalance), if any.
std::optional<Algorithm> CurrentSwitch(const std::vector<Rule>& current, Collective c,
                                       int64_t bytes, Regime r);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_SERIES_H_
