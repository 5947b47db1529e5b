#include "daemon/engine.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <limits>
#include <array>
#include <cmath>
#include <tuple>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "common/stats.h"
#include "daemon/online.h"
#include "daemon/ranges.h"
#include "daemon/series.h"

namespace colltune::daemon {
namespace {
struct SizeDecision {
  // What a size's decision would be with another qualified candidate.
  struct Alternative {
    Algorithm algorithm;
    double speedup;
    Evidence evidence;
  };
  int64_t bytes;
  Algorithm algorithm;
  double speedup;
  Evidence evidence;
  // The other candidates that qualified within the tie band of the fastest,
  // which the next smaller size's choice may take the size to
  // (KeepNeighboursChoice).
  std::vector<Alternative> level = {};
  bool incumbent = false;  // the current table's choice kept its size
  // The regime switches (DecideSwitches), with their speedups over
  // `algorithm` in their regime.
  std::optional<Algorithm> loop = {}, imbalance = {};
  double loop_speedup = 0, imbalance_speedup = 0;

  bool SameAs(const SizeDecision& o) const {
    return algorithm == o.algorithm && loop == o.loop && imbalance == o.imbalance;
  }
  // The switch of regime r (loop or imbalance) and its speedup.
  std::optional<Algorithm>& SwitchIn(Regime r) {
    return r == Regime::kLoop ? loop : imbalance;
  }
  double& SwitchSpeedupIn(Regime r) {
    return r == Regime::kLoop ? loop_speedup : imbalance_speedup;
  }
};

constexpr Regime kSwitchRegimes[] = {Regime::kLoop, Regime::kImbalance};

// A point timed in the synchronized regime only (campaigns from before
// regimes were timed): decided on that regime, as it always was.
SizeDecision DecideSizeSynchronized(Collective c, int64_t bytes,
                                    const std::map<int, Series>& series,
                                    const std::vector<Rule>& current,
                                    const EngineOptions& o) {
  std::map<int, Launches> algorithms;
  for (const auto& [a, s] : series) {
    if (!s.sync().empty()) algorithms[a] = s.sync();
  }
  const Launches& def = algorithms.at(IndexOf(Algorithm::kDefault));
  // Every algorithm that beats default, with its p-value.
  std::map<int, double> qualified;
  int best = IndexOf(Algorithm::kDefault);
  for (const auto& [a, launches] : algorithms) {
    if (a == IndexOf(Algorithm::kDefault)) continue;
    double p;
    if (!BeatsDefault(launches, def, MarginOf(a, o), o, &p)) continue;
    qualified[a] = p;
    if (best == IndexOf(Algorithm::kDefault) ||
        launches.Median() < algorithms.at(best).Median()) {
      best = a;
    }
  }
  // Near-ties go to the steadier candidate. Some algorithms run in two
  // modes from repetition to repetition (Open MPI's in-order binary reduce
  // of 64 B here: 3.7 or 5.6 us, about half the time each), and their median
  // lands in one mode or the other by a small shift of that proportion: a
  // campaign saw 3.7 us, level with linear's 3.7, and the evaluation 5.6. Among
  // the candidates within `tie_band` of the fastest median, the lowest upper
  // quartile wins: it is the median of the slower half, and it sits in the
  // slow mode whenever that mode holds more than a quarter of the calls.
  double steadiest = o.tie_band > 0 && best != IndexOf(Algorithm::kDefault)
                         ? algorithms.at(best).UpperQuartile()
                         : 0;  // 0: no tie-break (off, no candidate, or unknown)
  if (steadiest > 0) {
    const double fastest = algorithms.at(best).Median();
    for (const auto& [a, p] : qualified) {
      const Launches& l = algorithms.at(a);
      const double u = l.UpperQuartile();
      if (u > 0 && u < steadiest && l.Median() <= (1 + o.tie_band) * fastest) {
        best = a;
        steadiest = u;
      }
    }
  }
  int choice = best;
  const int incumbent = IndexOf(CurrentChoice(current, c, bytes));
  if (qualified.count(incumbent) && incumbent != best) {
    double p;
    if (!Beats(algorithms.at(best), algorithms.at(incumbent), MarginOf(best, o), o, &p)) {
      choice = incumbent;  // the newcomer is not clearly better: no flapping
    }
  }
  SizeDecision d{bytes, static_cast<Algorithm>(choice), 1.0, {}};
  const Launches& chosen = algorithms.at(choice);
  d.evidence.p_value = choice == IndexOf(Algorithm::kDefault) ? 1 : qualified[choice];
  d.evidence.launches_default = static_cast<int>(def.medians.size());
  d.evidence.launches_algorithm = static_cast<int>(chosen.medians.size());
  std::set<int64_t> campaigns = def.campaigns;
  campaigns.insert(chosen.campaigns.begin(), chosen.campaigns.end());
  d.evidence.campaigns.assign(campaigns.begin(), campaigns.end());
  if (chosen.Median() > 0) d.speedup = def.Median() / chosen.Median();
  return d;
}

// The regimes default was timed in at a point (sync always counts).
RegimeSet RegimesOf(const Series& def) {
  RegimeSet set = kSyncOnly;
  for (Regime r : kAllRegimes) {
    if (!def.in(r).empty()) set |= Bit(r);
  }
  return set;
}

// Calls f(x's median, y's median) for each launch that timed both.
template <class F>
void ForEachSharedLaunch(const Launches& x, const Launches& y, F f) {
  for (size_t i = 0; i < x.ids.size(); ++i) {
    for (size_t j = 0; j < y.ids.size(); ++j) {
      if (x.ids[i] == y.ids[j]) f(x.medians[i], y.medians[j]);
    }
  }
}

// The largest ratio of x's median to y's over the launches that timed both
// (infinite where y's is 0 and x's is not).
double WorstLaunchRatio(const Launches& x, const Launches& y) {
  double worst = 0;
  ForEachSharedLaunch(x, y, [&](double xm, double ym) {
    const double ratio = ym > 0   ? xm / ym
                         : xm > 0 ? std::numeric_limits<double>::infinity()
                                  : 0;
    worst = std::max(worst, ratio);
  });
  return worst;
}

// The median over the launches that timed both of x's median over y's of
// the same launch (0 where none did). Launches differ by more than the
// algorithms do on an oversubscribed node, so the ratio of the medians over
// launches can favour x while x is slower in most launches: 1.04x faster by
// the medians, 6-8 % slower in three launches of four (bcast 1 B back to
// back, docs/results-2026-11-28.md).
double MedianLaunchRatio(const Launches& x, const Launches& y) {
  std::vector<double> ratios;
  ForEachSharedLaunch(x, y, [&](double xm, double ym) {
    if (ym > 0) ratios.push_back(xm / ym);
  });
  return ratios.empty() ? 0 : colltune::Median(ratios);
}

// In some launch, x's median is above y's of the same launch by more than
// `margin`: x flips with the launch.
bool SlowerInSomeLaunch(const Launches& x, const Launches& y, double margin) {
  return WorstLaunchRatio(x, y) > 1 + margin;
}

// x is slower than y in a regime, as far as a decision may allow: its median
// beyond the regime slack, or the median of its per-launch ratios to y, or
// its median in some launch beyond the margin.
bool SlowerThan(const Launches& x, const Launches& y, const EngineOptions& o) {
  return x.Median() > (1 + o.regime_slack) * y.Median() ||
         MedianLaunchRatio(x, y) > 1 + o.regime_slack || SlowerInSomeLaunch(x, y, o.margin);
}

// How a candidate fares against a baseline (default, or the incumbent) in
// every regime of `regimes` (docs/architecture.md, regimes first).
struct RegimeVerdict {
  bool qualified = false;  // won one regime, slower in none
  double score = 0;        // geometric mean of its time / the baseline's
  double p = 1;            // the largest p-value of the regimes it won
  std::vector<RegimeEvidence> evidence;
};

std::string NotFasterReason(double margin) {
  char text[96];
  snprintf(text, sizeof text, "not significantly faster by the margin (%.0f %%)",
           margin * 100);
  return text;
}

// x is faster than y by the margin, but saves less than the dispatch costs.
bool GainTooSmall(const Launches& x, const Launches& y, double margin, const EngineOptions& o) {
  return x.Median() <= (1 - margin) * y.Median() && !SavesEnough(x, y, o);
}

std::string SmallSavingReason(const EngineOptions& o) {
  char text[96];
  snprintf(text, sizeof text, "saves less than %.0f ns a call (the shim's dispatch)",
           o.min_saving * 1e9);
  return text;
}

// Why x is slower than y in regime r, as SlowerThan found it.
std::string SlowerReason(const Launches& x, const Launches& y, Regime r,
                         const EngineOptions& o) {
  char text[128];
  const double median = x.Median() / y.Median();
  if (median > 1 + o.regime_slack) {
    snprintf(text, sizeof text, "slower %s: median %.2fx default's", PhraseOf(r), median);
    return text;
  }
  const double paired = MedianLaunchRatio(x, y);
  if (paired > 1 + o.regime_slack) {
    snprintf(text, sizeof text, "slower %s launch by launch: median %.2fx default's",
             PhraseOf(r), paired);
    return text;
  }
  snprintf(text, sizeof text, "slower %s in one launch: %.2fx default's", PhraseOf(r),
           WorstLaunchRatio(x, y));
  return text;
}

// `why` (may be null: the decisions' own calls do not ask) gets the first
// reason x does not qualify against default, empty if it does.
RegimeVerdict JudgeRegimes(const Series& x, const Series& base, RegimeSet regimes,
                           double margin, bool against_default, const EngineOptions& o,
                           std::string* why = nullptr) {
  RegimeVerdict v;
  bool won_any = false, slower_any = false, complete = true, too_small = false;
  double log_sum = 0, p_won = 0;
  int n = 0;
  for (Regime r : kAllRegimes) {
    if (!(regimes & Bit(r))) continue;
    const Launches& xr = x.in(r);
    const Launches& br = base.in(r);
    if (xr.empty() || br.empty() || xr.Median() <= 0 || br.Median() <= 0) {
      complete = false;  // not timed in this regime: cannot be judged
      if (why != nullptr && why->empty()) *why = std::string("not timed ") + PhraseOf(r);
      continue;
    }
    const size_t needed =
        std::min<size_t>(static_cast<size_t>(std::max(0, o.min_regime_launches)),
                         br.ids.size());
    if (xr.ids.size() < needed) {
      // Timed in too few launches of this regime to be trusted in the next
      // one; it is still judged, so that a regime it loses says so.
      complete = false;
      if (why != nullptr && why->empty()) {
        char text[96];
        snprintf(text, sizeof text, "timed %s in %zu of %zu launches", PhraseOf(r),
                 xr.ids.size(), br.ids.size());
        *why = text;
      }
    }
    RegimeEvidence e;
    e.regime = r;
    e.speedup = br.Median() / xr.Median();
    double p = 1;
    // Against default the paired and steadiness tests apply too; against
    // another candidate, the test across launches.
    e.won = against_default ? BeatsDefault(xr, br, margin, o, &p) : Beats(xr, br, margin, o, &p);
    if (!e.won) p = MannWhitneyLess(xr.medians, br.medians);
    too_small = too_small || (!e.won && GainTooSmall(xr, br, margin, o));
    e.p_value = p;
    if (e.won) {
      won_any = true;
      p_won = std::max(p_won, p);
    }
    if (SlowerThan(xr, br, o)) {
      slower_any = true;
      if (why != nullptr && why->empty()) *why = SlowerReason(xr, br, r, o);
    }
    log_sum += std::log(xr.Median() / br.Median());
    ++n;
    v.evidence.push_back(e);
  }
  v.qualified = complete && won_any && !slower_any;
  if (why != nullptr && why->empty() && !won_any) {
    *why = too_small ? SmallSavingReason(o) : NotFasterReason(margin);
  }
  v.score = n > 0 ? std::exp(log_sum / n) : 0;
  v.p = won_any ? p_won : 1;
  return v;
}

SizeDecision DecideSize(Collective c, int64_t bytes,
                        const std::map<int, Series>& algorithms,
                        const std::vector<Rule>& current,
                        const EngineOptions& o) {
  const Series& def_series = algorithms.at(IndexOf(Algorithm::kDefault));
  const RegimeSet regimes = RegimesOf(def_series);
  if (regimes == kSyncOnly) return DecideSizeSynchronized(c, bytes, algorithms, current, o);
  // Every algorithm that beats default in some regime and loses in none.
  std::map<int, RegimeVerdict> qualified;
  int best = IndexOf(Algorithm::kDefault);
  for (const auto& [a, series] : algorithms) {
    if (a == IndexOf(Algorithm::kDefault)) continue;
    RegimeVerdict v = JudgeRegimes(series, def_series, regimes, MarginOf(a, o), true, o);
    if (!v.qualified) continue;
    if (best == IndexOf(Algorithm::kDefault) || v.score < qualified[best].score) best = a;
    qualified[a] = std::move(v);
  }
  // Near-ties (scores within the tie band) go to the steadier candidate in
  // the synchronized regime, as DecideSizeSynchronized says why.
  if (o.tie_band > 0 && best != IndexOf(Algorithm::kDefault)) {
    double steadiest = algorithms.at(best).sync().UpperQuartile();
    const double fastest = qualified[best].score;
    for (const auto& [a, v] : qualified) {
      const double u = algorithms.at(a).sync().UpperQuartile();
      if (steadiest > 0 && u > 0 && u < steadiest && v.score <= (1 + o.tie_band) * fastest) {
        best = a;
        steadiest = u;
      }
    }
  }
  int choice = best;
  const int incumbent = IndexOf(CurrentChoice(current, c, bytes));
  if (qualified.count(incumbent) && incumbent != best) {
    // The newcomer must beat the incumbent as it beat default: no flapping.
    const RegimeVerdict v = JudgeRegimes(algorithms.at(best), algorithms.at(incumbent),
                                         regimes, MarginOf(best, o), false, o);
    if (!v.qualified) choice = incumbent;
  }
  // What choosing `a` decides: its speedup and the evidence behind it.
  const auto decided = [&](int a) {
    SizeDecision::Alternative x{static_cast<Algorithm>(a), 1.0, {}};
    const Series& chosen = algorithms.at(a);
    x.evidence.launches_default = static_cast<int>(def_series.sync().medians.size());
    x.evidence.launches_algorithm = static_cast<int>(chosen.sync().medians.size());
    std::set<int64_t> campaigns;
    for (Regime r : kAllRegimes) {
      campaigns.insert(def_series.in(r).campaigns.begin(), def_series.in(r).campaigns.end());
      campaigns.insert(chosen.in(r).campaigns.begin(), chosen.in(r).campaigns.end());
    }
    x.evidence.campaigns.assign(campaigns.begin(), campaigns.end());
    if (a == IndexOf(Algorithm::kDefault)) {
      x.evidence.p_value = 1;
      for (Regime r : kAllRegimes) {
        if (regimes & Bit(r)) x.evidence.regimes.push_back({r, 1.0, 1.0, false});
      }
      return x;
    }
    const RegimeVerdict& v = qualified.at(a);
    x.evidence.p_value = v.p;
    x.evidence.regimes = v.evidence;
    x.speedup = v.score > 0 ? 1 / v.score : 1;
    return x;
  };
  SizeDecision::Alternative x = decided(choice);
  SizeDecision d{bytes, x.algorithm, x.speedup, std::move(x.evidence)};
  d.incumbent = choice == incumbent && choice != IndexOf(Algorithm::kDefault);
  if (o.tie_band > 0 && choice != IndexOf(Algorithm::kDefault)) {
    double fastest = qualified.at(choice).score;
    for (const auto& [a, v] : qualified) fastest = std::min(fastest, v.score);
    for (const auto& [a, v] : qualified) {
      if (a != choice && v.score <= (1 + o.tie_band) * fastest) d.level.push_back(decided(a));
    }
  }
  return d;
}

// A size's regime switches (docs/architecture.md, "Regime switching"), once
// its choice is final: for the back-to-back and the uneven-work regime, the
// candidate fastest there of those that beat the choice there by the switch
// margin across launches, timed in as many launches as the choice (up to
// min_regime_launches), and faster than default there too. The current
// table's switch keeps its regime unless the newcomer beats it by the same
// test (no flapping).
void DecideSwitches(Collective c, const std::map<int, Series>& algorithms,
                    const std::vector<Rule>& current, const EngineOptions& o,
                    SizeDecision* d) {
  d->loop.reset();
  d->imbalance.reset();
  d->loop_speedup = d->imbalance_speedup = 0;
  if (o.switch_margin <= 0) return;
  const auto base_it = algorithms.find(IndexOf(d->algorithm));
  const auto def_it = algorithms.find(IndexOf(Algorithm::kDefault));
  if (base_it == algorithms.end() || def_it == algorithms.end()) return;
  for (Regime r : kSwitchRegimes) {
    const Launches& base = base_it->second.in(r);
    const Launches& def = def_it->second.in(r);
    if (base.empty() || def.empty() || base.Median() <= 0 || def.Median() <= 0) continue;
    const size_t needed =
        std::min<size_t>(static_cast<size_t>(std::max(0, o.min_regime_launches)),
                         base.ids.size());
    const auto qualifies = [&](int a) {
      if (a == IndexOf(d->algorithm)) return false;
      const auto it = algorithms.find(a);
      if (it == algorithms.end()) return false;
      const Launches& x = it->second.in(r);
      if (x.empty() || x.Median() <= 0 || x.ids.size() < needed ||
          x.Median() >= def.Median()) {
        return false;
      }
      double p;
      return SavesEnough(x, base, o) && Beats(x, base, o.switch_margin, o, &p);
    };
    int best = -1;
    for (const auto& [a, series] : algorithms) {
      if (qualifies(a) &&
          (best < 0 || series.in(r).Median() < algorithms.at(best).in(r).Median())) {
        best = a;
      }
    }
    const std::optional<Algorithm> held = CurrentSwitch(current, c, d->bytes, r);
    if (held && IndexOf(*held) != best && qualifies(IndexOf(*held))) {
      double p;
      if (best < 0 || !Beats(algorithms.at(best).in(r), algorithms.at(IndexOf(*held)).in(r),
                             o.switch_margin, o, &p)) {
        best = IndexOf(*held);
      }
    }
    if (best < 0) continue;
    d->SwitchIn(r) = static_cast<Algorithm>(best);
    d->SwitchSpeedupIn(r) = base.Median() / algorithms.at(best).in(r).Median();
  }
}

// Takes back each switch of d that held-out launches time slower than
// default in its own regime, at a point whose held-out series are `at`.
void TakeBackSwitches(const std::map<int, Series>& at, const EngineOptions& o,
                      SizeDecision* d) {
  for (Regime r : kSwitchRegimes) {
    std::optional<Algorithm>& a = d->SwitchIn(r);
    if (a && !HeldOutSwitchVerdict(at, IndexOf(*a), r, o).empty()) a.reset();
  }
}

// DecideSwitches for an irregular collective's size, over its points
// (block-size distributions), as DecideAcross decides its choice: a
// regime's switch is the one a strict majority of the points give, and
// the choice is faster than it there by the switch margin at none.
void DecideSwitchesAcross(Collective c, const ByPoint& points, const std::vector<Rule>& current,
                          const EngineOptions& o, SizeDecision* d) {
  d->loop.reset();
  d->imbalance.reset();
  d->loop_speedup = d->imbalance_speedup = 0;
  // Per regime: switch -> its speedups at the points that gave it.
  std::map<int, std::vector<double>> votes[kNumRegimes];
  int measured = 0;
  for (const auto& [point, algorithms] : points) {
    if (!algorithms.count(IndexOf(Algorithm::kDefault))) continue;
    ++measured;
    SizeDecision at = *d;
    DecideSwitches(c, algorithms, current, o, &at);
    for (Regime r : kSwitchRegimes) {
      if (!at.SwitchIn(r)) continue;
      votes[IndexOf(r)][IndexOf(*at.SwitchIn(r))].push_back(at.SwitchSpeedupIn(r));
    }
  }
  for (Regime r : kSwitchRegimes) {
    for (const auto& [a, speedups] : votes[IndexOf(r)]) {
      if (2 * static_cast<int>(speedups.size()) <= measured) continue;
      bool loses = false;
      for (const auto& [point, algorithms] : points) {
        const auto x = algorithms.find(a);
        const auto base = algorithms.find(IndexOf(d->algorithm));
        double p;
        if (x != algorithms.end() && base != algorithms.end() && !x->second.in(r).empty() &&
            !base->second.in(r).empty() &&
            Beats(base->second.in(r), x->second.in(r), o.switch_margin, o, &p)) {
          loses = true;
        }
      }
      if (loses) continue;
      double log_sum = 0;
      for (double x : speedups) log_sum += std::log(x);
      d->SwitchIn(r) = static_cast<Algorithm>(a);
      d->SwitchSpeedupIn(r) = std::exp(log_sum / static_cast<double>(speedups.size()));
    }
  }
}

// Where a size's choice and the next smaller size's are level at it (both
// qualified, scores within the tie band), the smaller size's choice is kept:
// near-ties are decided by a launch's noise, and a table that alternates
// algorithms over neighbouring ranges (binary, chain, binary, chain) runs
// whichever side of that noise each size drew (docs/results-2026-11-28.md,
// "The demo with the evaluation"). A size the current table's choice kept
// is left alone: moving it would be the flapping hysteresis prevents.
void KeepNeighboursChoice(std::vector<SizeDecision>* sizes) {
  for (size_t i = 1; i < sizes->size(); ++i) {
    SizeDecision& d = (*sizes)[i];
    const Algorithm previous = (*sizes)[i - 1].algorithm;
    if (d.incumbent || d.algorithm == previous) continue;
    for (SizeDecision::Alternative& x : d.level) {
      if (x.algorithm != previous) continue;
      d.algorithm = x.algorithm;
      d.speedup = x.speedup;
      d.evidence = x.evidence;
      break;
    }
  }
}

// Default is faster than `x` by the margin in some regime both were timed in.
bool LosesToDefault(const Series& x, const Series& def, double margin,
                    const EngineOptions& o) {
  for (Regime r : kAllRegimes) {
    const Launches& d = def.in(r);
    const Launches& a = x.in(r);
    double p;
    if (!d.empty() && !a.empty() && Beats(d, a, margin, o, &p)) return true;
  }
  return false;
}

// An irregular collective's points at one decided size (docs/architecture.md): each
// measured point (block-size distribution) is decided as a size is, and an
// algorithm wins if it is the choice at a strict majority of points and
// default is significantly faster than it (by the margin) at none: a choice
// must hold whatever the distribution of counts. Nothing without a point
// measuring default.
std::optional<SizeDecision> DecideAcross(Collective c, int64_t bytes,
                                         const ByPoint& points,
                                         const std::vector<Rule>& current,
                                         const EngineOptions& o) {
  std::map<int, std::vector<SizeDecision>> won;  // algorithm -> its points
  int measured = 0;
  for (const auto& [point, algorithms] : points) {
    if (!algorithms.count(IndexOf(Algorithm::kDefault))) continue;
    ++measured;
    const SizeDecision d = DecideSize(c, bytes, algorithms, current, o);
    won[IndexOf(d.algorithm)].push_back(d);
  }
  if (measured == 0) return std::nullopt;
  const auto loses_somewhere = [&](int a) {
    for (const auto& [point, algorithms] : points) {
      auto def = algorithms.find(IndexOf(Algorithm::kDefault));
      auto alg = algorithms.find(a);
      if (def == algorithms.end() || alg == algorithms.end()) continue;
      if (LosesToDefault(alg->second, def->second, MarginOf(a, o), o)) return true;
    }
    return false;
  };
  int choice = IndexOf(Algorithm::kDefault);
  for (const auto& [a, decided] : won) {
    if (a != IndexOf(Algorithm::kDefault) && 2 * static_cast<int>(decided.size()) > measured &&
        !loses_somewhere(a)) {
      choice = a;
    }
  }
  SizeDecision d{bytes, static_cast<Algorithm>(choice), 1.0, {}};
  if (choice == IndexOf(Algorithm::kDefault)) {
    // Judged in the regimes its points were timed in (none: sync only).
    for (const auto& [a, decided] : won) {
      for (const SizeDecision& s : decided) {
        if (s.evidence.regimes.empty()) {
          d.evidence.regimes.clear();
          return d;
        }
        if (d.evidence.regimes.empty()) {
          for (const RegimeEvidence& e : s.evidence.regimes) {
            d.evidence.regimes.push_back({e.regime, 1.0, 1.0, false});
          }
        }
      }
    }
    return d;
  }
  // Evidence: the weakest of the points it won; speedup: geometric mean over
  // those points.
  double log_sum = 0;
  const std::vector<SizeDecision>& mine = won[choice];
  d.evidence = mine[0].evidence;
  for (const SizeDecision& s : mine) {
    log_sum += std::log(s.speedup);
    Weaken(&d.evidence, s.evidence);
  }
  d.speedup = std::exp(log_sum / static_cast<double>(mine.size()));
  return d;
}

// The first size of the range that belongs to `hi` rather than `lo`: the
// geometric midpoint, rounded up, kept inside (lo, hi].
uint64_t Boundary(int64_t lo, int64_t hi) {
  const double mid = std::sqrt(static_cast<double>(lo) * static_cast<double>(hi));
  uint64_t b = static_cast<uint64_t>(std::ceil(mid));
  if (b <= static_cast<uint64_t>(lo)) b = static_cast<uint64_t>(lo) + 1;
  if (b > static_cast<uint64_t>(hi)) b = static_cast<uint64_t>(hi);
  return b;
}

// x is slower than `def` in some regime both were timed in (SlowerThan), the
// test that keeps a candidate from winning a point.
bool SlowerSomewhere(const Series& x, const Series& def, const EngineOptions& o) {
  for (Regime r : kAllRegimes) {
    const Launches& a = x.in(r);
    const Launches& d = def.in(r);
    if (!a.empty() && !d.empty() && a.Median() > 0 && d.Median() > 0 && SlowerThan(a, d, o)) {
      return true;
    }
  }
  return false;
}

// The bytes sizes[i]'s decision covers, as AppendRanges will make it.
std::pair<int64_t, int64_t> SpanOf(const std::vector<SizeDecision>& sizes, size_t i) {
  const int64_t lo =
      i == 0 ? 0 : static_cast<int64_t>(Boundary(sizes[i - 1].bytes, sizes[i].bytes));
  const int64_t hi = i + 1 == sizes.size()
                         ? std::numeric_limits<int64_t>::max()
                         : static_cast<int64_t>(Boundary(sizes[i].bytes, sizes[i + 1].bytes)) - 1;
  return {lo, hi};
}

// Gives every size whose choice `loses(decision, lo, hi)` back to default.
template <class Loses>
void TakeBack(std::vector<SizeDecision>* sizes, Loses loses) {
  for (size_t i = 0; i < sizes->size(); ++i) {
    SizeDecision& d = (*sizes)[i];
    if (d.algorithm == Algorithm::kDefault) continue;
    const auto [lo, hi] = SpanOf(*sizes, i);
    if (!loses(d, lo, hi)) continue;
    d.algorithm = Algorithm::kDefault;
    d.speedup = 1;
    d.evidence.p_value = 1;
    for (RegimeEvidence& e : d.evidence.regimes) e = {e.regime, 1.0, 1.0, false};
  }
}

// True if `loses` holds at some layout point of collective c whose size
// lies in [lo, hi] (its algorithms' series).
template <class Loses>
bool LosesOnSomeLayout(Collective c, const std::map<LayoutGroup, BySize>& layouts,
                       int64_t lo, int64_t hi, Loses loses) {
  for (const auto& [group, by_size] : layouts) {
    if (std::get<0>(group) != IndexOf(c)) continue;
    for (auto it = by_size.lower_bound(lo); it != by_size.end() && it->first <= hi; ++it) {
      if (loses(it->second)) return true;
    }
  }
  return false;
}

// A plain rule runs on derived-datatype data too: its key, the size, is
// what every rank agrees on, and the layout is not (ranks may describe the
// same signature by different types). Where the datatype grid timed a size's
// choice on some layout of that size and it was slower than default there
// in some regime (as a candidate may not be anywhere it wins), the size
// keeps default, and the layouts' own rules (rank-local forms) take over: a
// choice fitted to contiguous data can be far slower on a struct or a nested
// vector (docs/results-2026-11-27.md). A choice not timed on a layout is
// kept.
void KeepDefaultWhereLayoutsLose(Collective c,
                                 const std::map<LayoutGroup, BySize>& layouts,
                                 std::vector<SizeDecision>* sizes, const EngineOptions& o) {
  TakeBack(sizes, [&](const SizeDecision& d, int64_t lo, int64_t hi) {
    return LosesOnSomeLayout(c, layouts, lo, hi, [&](const std::map<int, Series>& at) {
      auto def = at.find(IndexOf(Algorithm::kDefault));
      auto x = at.find(IndexOf(d.algorithm));
      return def != at.end() && x != at.end() && SlowerSomewhere(x->second, def->second, o);
    });
  });
}

// The lowest median in regime r of default and the datatype forms timed at
// a layout point (0 if none was timed there in r).
double FastestFormIn(const std::map<int, Series>& at, Regime r) {
  double best = 0;
  for (const auto& [a, series] : at) {
    const Algorithm form = static_cast<Algorithm>(a);
    const double m = series.in(r).Median();  // 0 if not timed in r
    if ((form == Algorithm::kDefault || IsDatatypeForm(form)) && m > 0 &&
        (best == 0 || m < best)) {
      best = m;
    }
  }
  return best;
}

// A plain rule's regime switch runs on derived-datatype data too, before
// the layouts' rules (a switch to a native algorithm or a mock-up must run
// on every rank, and only the size is known to all of them). Where the
// datatype grid timed a layout at a size the switch covers, the switch must
// have been timed there in its regime and be no slower (beyond the regime
// slack) than the fastest of default and the datatype forms timed there:
// else it is dropped, and the layout's own rule runs. A switch fitted to
// contiguous data ran 0.80-0.87x default on MPICH's alltoall of indexed and
// nested layouts, and kept a form 2x faster out (docs/results-2026-11-29.md).
void DropSwitchesWhereLayoutsLose(Collective c, const std::map<LayoutGroup, BySize>& layouts,
                                  std::vector<SizeDecision>* sizes, const EngineOptions& o) {
  for (size_t i = 0; i < sizes->size(); ++i) {
    SizeDecision& d = (*sizes)[i];
    const auto [lo, hi] = SpanOf(*sizes, i);
    for (Regime r : kSwitchRegimes) {
      std::optional<Algorithm>& a = d.SwitchIn(r);
      if (!a) continue;
      const int switched = IndexOf(*a);
      const bool loses =
          LosesOnSomeLayout(c, layouts, lo, hi, [&](const std::map<int, Series>& at) {
            const double best = FastestFormIn(at, r);
            if (best == 0) return false;  // nothing timed in this regime here
            const auto x = at.find(switched);
            const double m = x == at.end() ? 0 : x->second.in(r).Median();
            return m <= 0 || m > (1 + o.regime_slack) * best;  // untimed, or slower
          });
      if (loses) {
        a.reset();
        d.SwitchSpeedupIn(r) = 0;
      }
    }
  }
}

// A held-out point of [lo, hi] in `by` where the held-out launches take
// algorithm a back (HeldOutVerdict).
bool HeldOutLosesIn(const BySize& by, int64_t lo, int64_t hi, Algorithm a,
                    const EngineOptions& o) {
  for (auto it = by.lower_bound(lo); it != by.end() && it->first <= hi; ++it) {
    if (!HeldOutVerdict(it->second, IndexOf(a), o).empty()) return true;
  }
  return false;
}

// Held-out launches' points, grouped as the campaign's are.
struct HeldOut {
  std::map<int, BySize> plain;
  std::map<LayoutGroup, BySize> layouts;
  std::map<int, ByPoint> irregular;

  // Where the held-out launches time a's run of c's rule over [lo, hi]
  // slower than default: at a contiguous point (by size, or any
  // distribution of an irregular collective's), or on a layout of the
  // range, as KeepDefaultWhereLayoutsLose judges the campaign's.
  bool PlainLoses(Collective c, int64_t lo, int64_t hi, Algorithm a,
                  const EngineOptions& o) const {
    if (auto by = plain.find(IndexOf(c)); by != plain.end() &&
                                          HeldOutLosesIn(by->second, lo, hi, a, o)) {
      return true;
    }
    if (auto by = irregular.find(IndexOf(c)); by != irregular.end()) {
      for (const auto& [point, algorithms] : by->second) {
        if (point.second >= lo && point.second <= hi &&
            !HeldOutVerdict(algorithms, IndexOf(a), o).empty()) {
          return true;
        }
      }
    }
    for (const auto& [group, by_size] : layouts) {
      if (std::get<0>(group) == IndexOf(c) && HeldOutLosesIn(by_size, lo, hi, a, o)) return true;
    }
    return false;
  }
};

// Runs of equal decisions become one range: geometric-mean speedup, the
// weakest evidence of its sizes.
void AppendRanges(Collective c, const std::vector<SizeDecision>& sizes,
                  std::vector<Decision>* out) {
  for (size_t i = 0; i < sizes.size();) {
    size_t j = i;
    double log_sum = 0;
    Decision d;
    d.evidence = sizes[i].evidence;
    double loop_log = 0, imbalance_log = 0;
    while (j < sizes.size() && sizes[j].SameAs(sizes[i])) {
      log_sum += std::log(sizes[j].speedup);
      if (sizes[j].loop) loop_log += std::log(sizes[j].loop_speedup);
      if (sizes[j].imbalance) imbalance_log += std::log(sizes[j].imbalance_speedup);
      Weaken(&d.evidence, sizes[j].evidence);
      ++j;
    }
    const double n = static_cast<double>(j - i);
    d.rule.collective = c;
    d.rule.algorithm = sizes[i].algorithm;
    d.rule.speedup = std::exp(log_sum / n);
    d.rule.loop = sizes[i].loop;
    d.rule.imbalance = sizes[i].imbalance;
    if (d.rule.loop) d.rule.loop_speedup = std::exp(loop_log / n);
    if (d.rule.imbalance) d.rule.imbalance_speedup = std::exp(imbalance_log / n);
    d.rule.min_bytes = i == 0 ? 0 : Boundary(sizes[i - 1].bytes, sizes[i].bytes);
    d.rule.max_bytes = j == sizes.size()
                           ? kNoUpperBound
                           : Boundary(sizes[j - 1].bytes, sizes[j].bytes) - 1;
    out->push_back(std::move(d));
    i = j;
  }
}

}  // namespace

std::string WhyNotChosen(int a, const Series& x, const Series& def, const EngineOptions& o) {
  const RegimeSet regimes = RegimesOf(def);
  const double margin = MarginOf(a, o);
  if (regimes == kSyncOnly) {
    double p;
    if (BeatsDefault(x.sync(), def.sync(), margin, o, &p)) return "";
    return GainTooSmall(x.sync(), def.sync(), margin, o) ? SmallSavingReason(o)
                                                          : NotFasterReason(margin);
  }
  std::string why;
  const RegimeVerdict v = JudgeRegimes(x, def, regimes, margin, true, o, &why);
  return v.qualified ? "" : why;
}

std::string_view SourceName(Source s) {
  constexpr std::string_view kNames[] = {"campaign", "online", "pin"};  // the enum's order
  return kNames[static_cast<int>(s)];
}

std::vector<Decision> ComputeDecisions(const std::vector<LaunchMedian>& points,
                                       const std::vector<JobMedian>& online,
                                       const std::vector<Rule>& current,
                                       const std::vector<PinnedRange>& pins,
                                       const EngineOptions& options) {
  return FinishDecisions(CampaignDecisions(points, current, options), online, current,
                         pins, options);
}

std::vector<Decision> CampaignDecisions(const std::vector<LaunchMedian>& all_points,
                                        const std::vector<Rule>& current,
                                        const EngineOptions& options) {
  // What only a whole job can run (coll/han) is measured and shown, never a
  // rule: the shim could not run it for one call.
  // Held-out launches only check what the others decide.
  std::vector<LaunchMedian> points, held_out_points;
  points.reserve(all_points.size());
  for (const LaunchMedian& p : all_points) {
    if (AtLaunchOnly(p.algorithm)) continue;
    (p.held_out ? held_out_points : points).push_back(p);
  }
  const HeldOut held{Group(held_out_points), GroupLayouts(held_out_points),
                     GroupIrregular(held_out_points)};
  const auto take_back_plain = [&](Collective c, std::vector<SizeDecision>* sizes) {
    TakeBack(sizes, [&](const SizeDecision& d, int64_t lo, int64_t hi) {
      return held.PlainLoses(c, lo, hi, d.algorithm, options);
    });
  };
  std::vector<Decision> decisions;
  const std::map<LayoutGroup, BySize> layouts = GroupLayouts(points);
  for (const auto& [c, sizes] : Group(points)) {
    const Collective coll = static_cast<Collective>(c);
    std::vector<SizeDecision> decided;
    for (const auto& [bytes, algorithms] : sizes) {
      if (!algorithms.count(IndexOf(Algorithm::kDefault))) continue;
      decided.push_back(DecideSize(coll, bytes, algorithms, current, options));
    }
    KeepNeighboursChoice(&decided);
    KeepDefaultWhereLayoutsLose(coll, layouts, &decided, options);
    take_back_plain(coll, &decided);
    const auto held_plain = held.plain.find(c);
    for (SizeDecision& d : decided) {
      DecideSwitches(coll, sizes.at(d.bytes), current, options, &d);
      // A switch runs in its regime only; held-out launches judge it there.
      if (held_plain == held.plain.end()) continue;
      const auto at = held_plain->second.find(d.bytes);
      if (at != held_plain->second.end()) TakeBackSwitches(at->second, options, &d);
    }
    DropSwitchesWhereLayoutsLose(coll, layouts, &decided, options);
    AppendRanges(coll, decided, &decisions);
  }
  for (const auto& [c, measured] : GroupIrregular(points)) {
    const Collective coll = static_cast<Collective>(c);
    if (InfoOf(coll).key == SizeKey::kTotalBytes) {
      // Keyed on the total size: the distributions measured at each total
      // size decide that size, and sizes become ranges as regular ones do.
      std::map<int64_t, ByPoint> by_size;
      for (const auto& [point, algorithms] : measured) {
        by_size[point.second][point] = algorithms;
      }
      std::vector<SizeDecision> decided;
      for (const auto& [bytes, at_size] : by_size) {
        if (auto d = DecideAcross(coll, bytes, at_size, current, options)) {
          decided.push_back(*d);
        }
      }
      KeepDefaultWhereLayoutsLose(coll, layouts, &decided, options);
      take_back_plain(coll, &decided);
      const auto held_points = held.irregular.find(c);
      for (SizeDecision& d : decided) {
        DecideSwitchesAcross(coll, by_size.at(d.bytes), current, options, &d);
        // Held-out launches judge a switch at any distribution of the size.
        if (held_points == held.irregular.end()) continue;
        for (const auto& [point, algorithms] : held_points->second) {
          if (point.second == d.bytes) TakeBackSwitches(algorithms, options, &d);
        }
      }
      DropSwitchesWhereLayoutsLose(coll, layouts, &decided, options);
      AppendRanges(coll, decided, &decisions);
      continue;
    }
    // No size key: one decision for every call on the communicator (and so
    // judged on every layout point, whatever its size).
    if (auto d = DecideAcross(coll, 0, measured, current, options)) {
      std::vector<SizeDecision> one = {*d};
      KeepDefaultWhereLayoutsLose(coll, layouts, &one, options);
      take_back_plain(coll, &one);
      d = one.front();
      Decision whole;
      whole.rule.collective = coll;
      whole.rule.min_bytes = 0;
      whole.rule.max_bytes = kNoUpperBound;
      whole.rule.algorithm = d->algorithm;
      whole.rule.speedup = d->speedup;
      whole.evidence = d->evidence;
      decisions.push_back(whole);
    }
  }
  std::stable_sort(decisions.begin(), decisions.end(),
                   [](const Decision& a, const Decision& b) {
                     return IndexOf(a.rule.collective) < IndexOf(b.rule.collective);
                   });
  // Derived datatypes: each layout's points decide its sizes as plain
  // points do, between default and the datatype forms only (all a layout
  // rule may name); its ranges follow the plain ones, in the table's order.
  for (const auto& [group, sizes] : layouts) {
    const auto& [c, layout_class, block_log2] = group;
    const Collective coll = static_cast<Collective>(c);
    const LayoutKey key{static_cast<LayoutClass>(layout_class),
                        static_cast<int8_t>(block_log2)};
    std::vector<Rule> mine;  // the layout's current rules, for hysteresis
    for (const Rule& r : current) {
      if (r.collective == coll && r.layout == key) mine.push_back(r);
    }
    for (Rule& r : mine) r.layout = {};
    std::vector<SizeDecision> decided;
    ByPoint across;  // a collective without a size key: its sizes together
    for (const auto& [bytes, measured] : sizes) {
      std::map<int, Series> algorithms;
      for (const auto& [a, series] : measured) {
        if (a == IndexOf(Algorithm::kDefault) || IsDatatypeForm(static_cast<Algorithm>(a))) {
          algorithms.emplace(a, series);
        }
      }
      if (!algorithms.count(IndexOf(Algorithm::kDefault))) continue;
      if (InfoOf(coll).key == SizeKey::kNone) {
        across[{"", bytes}] = std::move(algorithms);
      } else {
        decided.push_back(DecideSize(coll, bytes, algorithms, mine, options));
      }
    }
    // Gatherv, scatterv and alltoallv have no size key: one rule for every
    // call of the layout, which must hold at every size measured.
    if (!across.empty()) {
      if (auto d = DecideAcross(coll, 0, across, mine, options)) decided.push_back(*d);
    }
    if (auto h = held.layouts.find(group); h != held.layouts.end()) {
      TakeBack(&decided, [&](const SizeDecision& d, int64_t lo, int64_t hi) {
        return HeldOutLosesIn(h->second, lo, hi, d.algorithm, options);
      });
    }
    const size_t first = decisions.size();
    AppendRanges(coll, decided, &decisions);
    for (size_t i = first; i < decisions.size(); ++i) decisions[i].rule.layout = key;
  }
  return decisions;
}

std::vector<Decision> FinishDecisions(std::vector<Decision> decisions,
                                      const std::vector<JobMedian>& online,
                                      const std::vector<Rule>& current,
                                      const std::vector<PinnedRange>& pins,
                                      const EngineOptions& options) {
  // Job reports and pins are about the plain rules; a layout's rules come
  // from campaigns alone and keep their place after them.
  const auto plain_end = std::stable_partition(
      decisions.begin(), decisions.end(),
      [](const Decision& d) { return !IsRuleLayout(d.rule.layout); });
  std::vector<Decision> by_layout(std::make_move_iterator(plain_end),
                                  std::make_move_iterator(decisions.end()));
  decisions.erase(plain_end, decisions.end());
  ApplyOnline(online, current, options, &decisions);
  ApplyPins(pins, &decisions);
  decisions.insert(decisions.end(), std::make_move_iterator(by_layout.begin()),
                   std::make_move_iterator(by_layout.end()));
  return decisions;
}

void ApplyPins(const std::vector<PinnedRange>& pins,
               std::vector<Decision>* decisions) {
  // A range pinned once and no longer is an ordinary decision again.
  for (Decision& d : *decisions) {
    if (d.evidence.pinned) d.evidence.source = Source::kCampaign;
    d.evidence.pinned = false;
  }
  for (const PinnedRange& pin : pins) Overlay(pin, decisions);
  Merge(decisions);
}

bool SameDecisions(const std::vector<Rule>& a, const std::vector<Rule>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].collective != b[i].collective || !(a[i].layout == b[i].layout) ||
        a[i].algorithm != b[i].algorithm || a[i].min_bytes != b[i].min_bytes ||
        a[i].max_bytes != b[i].max_bytes || a[i].loop != b[i].loop ||
        a[i].imbalance != b[i].imbalance) {
      return false;
    }
  }
  return true;
}

std::string DescribeChanges(const std::vector<Rule>& before,
                            const std::vector<Rule>& after) {
  // Compared size by size: cut every collective's byte axis at each range
  // boundary of either table, and report the pieces whose algorithm changed
  // (adjacent pieces with the same change merged). Comparing rules one by
  // one would report a merged range as changed and miss a removed one.
  // The plain rules of each collective, then each datatype layout's.
  std::set<std::tuple<bool, int, int, int>> keys;
  for (int ci = 0; ci < kNumCollectives; ++ci) keys.insert({false, ci, 0, -1});
  for (const auto* rules : {&before, &after}) {
    for (const Rule& r : *rules) {
      if (IsRuleLayout(r.layout)) {
        keys.insert({true, IndexOf(r.collective), static_cast<int>(r.layout.layout),
                     r.layout.block_log2});
      }
    }
  }
  std::string out;
  for (const auto& [by_layout, ci, layout_class, block_log2] : keys) {
    const Collective c = static_cast<Collective>(ci);
    const LayoutKey layout = by_layout ? LayoutKey{static_cast<LayoutClass>(layout_class),
                                                   static_cast<int8_t>(block_log2)}
                                       : LayoutKey{};
    std::set<uint64_t> starts = {0};
    for (const auto* rules : {&before, &after}) {
      for (const Rule& r : *rules) {
        if (r.collective != c || !(r.layout == layout)) continue;
        starts.insert(r.min_bytes);
        if (r.max_bytes != kNoUpperBound) starts.insert(r.max_bytes + 1);
      }
    }
    struct Piece {
      uint64_t min, max;
      std::string was, now;
    };
    // What a table runs at `at`: its choice, and its switches if any.
    const auto runs = [&](const std::vector<Rule>& rules, int64_t at) {
      std::string text(InfoOf(CurrentChoice(rules, c, at, layout)).name);
      if (by_layout) return text;
      if (auto a = CurrentSwitch(rules, c, at, Regime::kLoop)) {
        text += " (back to back " + std::string(InfoOf(*a).name) + ")";
      }
      if (auto a = CurrentSwitch(rules, c, at, Regime::kImbalance)) {
        text += " (after uneven work " + std::string(InfoOf(*a).name) + ")";
      }
      return text;
    };
    std::vector<Piece> pieces;
    for (auto it = starts.begin(); it != starts.end(); ++it) {
      auto next = std::next(it);
      const uint64_t max = next == starts.end() ? kNoUpperBound : *next - 1;
      const int64_t at = static_cast<int64_t>(*it);
      Piece piece{*it, max, runs(before, at), runs(after, at)};
      if (!pieces.empty() && pieces.back().was == piece.was &&
          pieces.back().now == piece.now) {
        pieces.back().max = max;
      } else {
        pieces.push_back(piece);
      }
    }
    for (const Piece& p : pieces) {
      if (p.was == p.now) continue;
      if (!out.empty()) out += "; ";
      out += Range(Rule{c, p.min, p.max, Algorithm::kDefault, 0, layout}) + ": " + p.was +
             " -> " + p.now;
    }
  }
  return out;
}

}  // namespace colltune::daemon
