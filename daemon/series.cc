#include "daemon/series.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>

namespace colltune::daemon {

std::vector<const LaunchMedian*> CompletePoints(const std::vector<LaunchMedian>& points) {
  // (collective, problem, bytes, launch) -> regimes default was stored in
  std::map<std::tuple<int, std::string, int64_t, int64_t>, RegimeSet> have;
  for (const LaunchMedian& p : points) {
    if (p.algorithm != Algorithm::kDefault) continue;
    have[{IndexOf(p.collective), p.problem, p.msg_bytes, p.launch}] |= Bit(p.regime);
  }
  std::vector<const LaunchMedian*> out;
  out.reserve(points.size());
  for (const LaunchMedian& p : points) {
    auto h = have.find({IndexOf(p.collective), p.problem, p.msg_bytes, p.launch});
    const RegimeSet declared = p.launch_regimes | kSyncOnly;
    if (h == have.end() || (declared & ~h->second) != 0) continue;
    out.push_back(&p);
  }
  return out;
}

std::map<int, BySize> Group(const std::vector<LaunchMedian>& points) {
  std::map<int, BySize> by;
  for (const LaunchMedian* p : CompletePoints(points)) {
    if (InfoOf(p->collective).irregular || !p->problem.empty()) continue;
    by[IndexOf(p->collective)][p->msg_bytes][IndexOf(p->algorithm)].Add(*p);
  }
  return by;
}

std::map<int, ByPoint> GroupIrregular(const std::vector<LaunchMedian>& points) {
  std::map<int, ByPoint> by;
  for (const LaunchMedian* p : CompletePoints(points)) {
    if (!InfoOf(p->collective).irregular || ParseLayoutProblem(p->problem)) continue;
    by[IndexOf(p->collective)][{p->problem, p->msg_bytes}][IndexOf(p->algorithm)].Add(*p);
  }
  return by;
}

std::map<LayoutGroup, BySize> GroupLayouts(const std::vector<LaunchMedian>& points) {
  std::map<LayoutGroup, BySize> by;
  for (const LaunchMedian* p : CompletePoints(points)) {
    const std::optional<LayoutKey> key = ParseLayoutProblem(p->problem);
    if (!key) continue;
    by[{IndexOf(p->collective), static_cast<int>(key->layout), key->block_log2}]
      [p->msg_bytes][IndexOf(p->algorithm)].Add(*p);
  }
  return by;
}

double MarginOf(int algorithm, const EngineOptions& o) {
  const Algorithm a = static_cast<Algorithm>(algorithm);
  return InfoOf(a).native() || RedescribesOnly(a) ? o.native_margin : o.margin;
}

bool Beats(const Launches& x, const Launches& y, double margin, const EngineOptions& o,
           double* p) {
  return SignificantlyFaster(x.medians, y.medians, o.alpha, margin, p);
}

bool FasterInEveryLaunch(const Launches& x, const EngineOptions& o, double* p) {
  if (o.min_paired_launches <= 0 ||
      x.within.size() < static_cast<size_t>(o.min_paired_launches)) {
    return false;
  }
  double worst = 0;
  for (double w : x.within) {
    if (w < 0) return false;  // a launch without the comparison: not paired
    worst = std::max(worst, w);
  }
  *p = worst;
  return worst <= o.alpha;
}

bool SavesEnough(const Launches& x, const Launches& y, const EngineOptions& o) {
  return y.Median() - x.Median() >= o.min_saving;
}

bool BeatsDefault(const Launches& x, const Launches& def, double margin,
                  const EngineOptions& o, double* p) {
  const bool saves = SavesEnough(x, def, o);
  if (saves && Beats(x, def, margin, o, p)) return true;
  double paired;
  const double mx = x.Median();
  if (saves && FasterInEveryLaunch(x, o, &paired) && mx > 0 &&
      mx <= (1 - margin) * def.Median()) {
    *p = paired;
    return true;
  }
  // Or steadier than default at no cost: its median and its lower quartile
  // within the tie band of default's, and its upper quartile significantly
  // lower across launches, by the margin. Default itself can run in two
  // modes (Open MPI's reduce of 1 KiB here: 3.6 or 5.8 us, the medians of a
  // launch's even and odd repetitions 3.66 and 5.78), and its median then
  // lands in either; linear runs 3.6-3.7 us in every repetition. The lower
  // quartile is the fast mode's: a candidate slower there trades default's
  // fast mode for a faster slow mode, and loses whenever a job sees mostly
  // the fast one (Open MPI's recursive-doubling scan of 8 B in one campaign
  // here: 3.8-4.5 against default's 3.6-4.0 us in the fast mode, 6.7-6.9
  // against 8.6-8.8 in the slow one; the evaluation that followed saw default
  // fast in every launch and recursive doubling 13-78 % slower).
  const double lx = x.LowerQuartile(), ld = def.LowerQuartile();
  if (o.tie_band > 0 && mx > 0 && mx <= (1 + o.tie_band) * def.Median() &&
      lx > 0 && ld > 0 && lx <= (1 + o.tie_band) * ld &&
      x.UpperQuartile() > 0 && def.UpperQuartile() > 0 &&
      def.UpperQuartile() - x.UpperQuartile() >= o.min_saving &&
      SignificantlyFaster(x.upper, def.upper, o.alpha, margin, p)) {
    return true;
  }
  return false;
}

namespace {

// The rule of `current` that holds `bytes` of `c` (plain or of a layout).
const Rule* RuleAt(const std::vector<Rule>& current, Collective c, int64_t bytes,
                   const LayoutKey& layout) {
  for (const Rule& r : current) {
    if (r.collective == c && r.layout == layout && r.min_bytes <= static_cast<uint64_t>(bytes) &&
        static_cast<uint64_t>(bytes) <= r.max_bytes) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace

Algorithm CurrentChoice(const std::vector<Rule>& current, Collective c,
                        int64_t bytes, const LayoutKey& layout) {
  const Rule* r = RuleAt(current, c, bytes, layout);
  return r ? r->algorithm : Algorithm::kDefault;
}

std::optional<Algorithm> CurrentSwitch(const std::vector<Rule>& current, Collective c,
                                       int64_t bytes, Regime r) {
  const Rule* rule = RuleAt(current, c, bytes, LayoutKey{});
  if (rule == nullptr) return std::nullopt;
  return r == Regime::kLoop ? rule->loop : r == Regime::kImbalance ? rule->imbalance
                                                                   : std::nullopt;
}

const char* PhraseOf(Regime r) {
  switch (r) {
    case Regime::kSync: return "from a barrier";
    case Regime::kLoop: return "back to back";
    case Regime::kImbalance: return "after uneven work";
  }
  return "";
}

namespace {

// Per held-out launch, x's median over default's; their median. A launch
// that timed default in the regime and not x dropped x after it lost an
// earlier regime badly (bench/regimes.h): it counts as lost (infinity).
double HeldOutRatio(const Launches& x, const Launches& def) {
  std::vector<double> ratios;
  for (size_t i = 0; i < def.ids.size(); ++i) {
    double ratio = std::numeric_limits<double>::infinity();
    for (size_t j = 0; j < x.ids.size(); ++j) {
      if (x.ids[j] == def.ids[i] && def.medians[i] > 0) ratio = x.medians[j] / def.medians[i];
    }
    ratios.push_back(ratio);
  }
  return colltune::Median(ratios);
}

}  // namespace

std::string HeldOutSwitchVerdict(const std::map<int, Series>& at, int a, Regime r,
                                 const EngineOptions& o) {
  if (o.min_held_out_launches <= 0) return "";
  const auto def = at.find(IndexOf(Algorithm::kDefault));
  const auto x = at.find(a);
  if (def == at.end() || x == at.end()) return "";
  const Launches& d = def->second.in(r);
  if (d.ids.size() < static_cast<size_t>(o.min_held_out_launches)) return "";
  const double ratio = HeldOutRatio(x->second.in(r), d);
  if (ratio <= 1 + o.held_out_slack) return "";
  char text[128];
  snprintf(text, sizeof text, "switch slower %s in the held-out launches: median %.2fx default's",
           PhraseOf(r), ratio);
  return text;
}

std::string HeldOutVerdict(const std::map<int, Series>& at, int a, const EngineOptions& o) {
  if (o.min_held_out_launches <= 0) return "";
  const auto def = at.find(IndexOf(Algorithm::kDefault));
  const auto x = at.find(a);
  if (def == at.end() || x == at.end()) return "";
  char text[128];
  double log_sum = 0;
  int n = 0;
  for (Regime r : kAllRegimes) {
    const Launches& d = def->second.in(r);
    if (d.empty()) continue;
    if (d.ids.size() < static_cast<size_t>(o.min_held_out_launches)) return "";
    // Per launch, x's median over default's. A launch that timed default in
    // the regime and not x dropped x after it lost an earlier regime badly
    // (bench/regimes.h): it counts as lost.
    const double ratio = HeldOutRatio(x->second.in(r), d);
    if (ratio > 1 + o.held_out_slack) {
      if (std::isinf(ratio)) {
        snprintf(text, sizeof text, "dropped %s in the held-out launches after losing",
                 PhraseOf(r));
      } else {
        snprintf(text, sizeof text, "slower %s in the held-out launches: median %.2fx default's",
                 PhraseOf(r), ratio);
      }
      return text;
    }
    log_sum += std::log(ratio);
    ++n;
  }
  if (n == 0 || log_sum < 0) return "";
  snprintf(text, sizeof text,
           "no faster than default in the held-out launches: %.2fx its time over the regimes",
           std::exp(log_sum / n));
  return text;
}

}  // namespace colltune::daemon
