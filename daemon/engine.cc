#include "daemon/engine.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>
#include <map>
#include <optional>
#include <set>

#include "common/stats.h"

namespace colltune::daemon {
namespace {

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
// a launch cut short between regimes leaves its point out whole (engine.h).
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

using BySize = std::map<int64_t, std::map<int, Series>>;  // size -> algorithm

std::map<int, BySize> Group(const std::vector<LaunchMedian>& points) {
  std::map<int, BySize> by;
  for (const LaunchMedian* p : CompletePoints(points)) {
    if (InfoOf(p->collective).irregular) continue;
    by[IndexOf(p->collective)][p->msg_bytes][IndexOf(p->algorithm)].Add(*p);
  }
  return by;
}

// Irregular collectives: (distribution, average block bytes) -> algorithm.
using ByPoint = std::map<std::pair<std::string, int64_t>, std::map<int, Series>>;

std::map<int, ByPoint> GroupIrregular(const std::vector<LaunchMedian>& points) {
  std::map<int, ByPoint> by;
  for (const LaunchMedian* p : CompletePoints(points)) {
    if (!InfoOf(p->collective).irregular) continue;
    by[IndexOf(p->collective)][{p->problem, p->msg_bytes}][IndexOf(p->algorithm)].Add(*p);
  }
  return by;
}

// The margin an algorithm must win by to replace another (engine.h): the
// library's own algorithms need less than mock-ups.
double MarginOf(int algorithm, const EngineOptions& o) {
  return InfoOf(static_cast<Algorithm>(algorithm)).native() ? o.native_margin : o.margin;
}

// x is significantly faster than y across launches, by `margin`.
bool Beats(const Launches& x, const Launches& y, double margin, const EngineOptions& o,
           double* p) {
  return SignificantlyFaster(x.medians, y.medians, o.alpha, margin, p);
}

// The paired test of engine.h against default: faster within every launch.
// *p is the intersection-union p-value, the largest of the launches'.
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

// x replaces default: significantly faster across launches or within every
// launch, and faster by the margin; or as fast and significantly steadier
// (engine.h).
bool BeatsDefault(const Launches& x, const Launches& def, double margin,
                  const EngineOptions& o, double* p) {
  if (Beats(x, def, margin, o, p)) return true;
  double paired;
  const double mx = x.Median();
  if (FasterInEveryLaunch(x, o, &paired) && mx > 0 &&
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
      SignificantlyFaster(x.upper, def.upper, o.alpha, margin, p)) {
    return true;
  }
  return false;
}

Algorithm CurrentChoice(const std::vector<Rule>& current, Collective c,
                        int64_t bytes) {
  for (const Rule& r : current) {
    if (r.collective == c && r.min_bytes <= static_cast<uint64_t>(bytes) &&
        static_cast<uint64_t>(bytes) <= r.max_bytes) {
      return r.algorithm;
    }
  }
  return Algorithm::kDefault;
}

struct SizeDecision {
  int64_t bytes;
  Algorithm algorithm;
  double speedup;
  Evidence evidence;
};

// Folds `e` into `into`, keeping the weaker of each: the larger p-value, the
// fewer launches, every campaign, and per regime (only those both were timed
// in; none if either was timed synchronized only) the smaller speedup, the
// larger p-value and a win only where both won.
void Weaken(Evidence* into, const Evidence& e) {
  into->p_value = std::max(into->p_value, e.p_value);
  into->launches_default = std::min(into->launches_default, e.launches_default);
  into->launches_algorithm = std::min(into->launches_algorithm, e.launches_algorithm);
  std::set<int64_t> campaigns(into->campaigns.begin(), into->campaigns.end());
  campaigns.insert(e.campaigns.begin(), e.campaigns.end());
  into->campaigns.assign(campaigns.begin(), campaigns.end());
  std::vector<RegimeEvidence> both;
  for (const RegimeEvidence& a : into->regimes) {
    for (const RegimeEvidence& b : e.regimes) {
      if (a.regime != b.regime) continue;
      both.push_back({a.regime, std::min(a.speedup, b.speedup),
                      std::max(a.p_value, b.p_value), a.won && b.won});
    }
  }
  into->regimes = std::move(both);
}

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

// In some launch, x's median is above y's of the same launch by more than
// `margin`: x flips with the launch.
bool SlowerInSomeLaunch(const Launches& x, const Launches& y, double margin) {
  for (size_t i = 0; i < x.ids.size(); ++i) {
    for (size_t j = 0; j < y.ids.size(); ++j) {
      if (x.ids[i] == y.ids[j] && x.medians[i] > (1 + margin) * y.medians[j]) return true;
    }
  }
  return false;
}

// How a candidate fares against a baseline (default, or the incumbent) in
// every regime of `regimes` (engine.h, "every regime counts").
struct RegimeVerdict {
  bool qualified = false;  // won one regime, slower in none
  double score = 0;        // geometric mean of its time / the baseline's
  double p = 1;            // the largest p-value of the regimes it won
  std::vector<RegimeEvidence> evidence;
};

RegimeVerdict JudgeRegimes(const Series& x, const Series& base, RegimeSet regimes,
                           double margin, bool against_default, const EngineOptions& o) {
  RegimeVerdict v;
  bool won_any = false, slower_any = false, complete = true;
  double log_sum = 0, p_won = 0;
  int n = 0;
  for (Regime r : kAllRegimes) {
    if (!(regimes & Bit(r))) continue;
    const Launches& xr = x.in(r);
    const Launches& br = base.in(r);
    if (xr.empty() || br.empty() || xr.Median() <= 0 || br.Median() <= 0) {
      complete = false;  // not timed in this regime: cannot be judged
      continue;
    }
    RegimeEvidence e;
    e.regime = r;
    e.speedup = br.Median() / xr.Median();
    double p = 1;
    // Against default the paired and steadiness tests apply too; against
    // another candidate, the test across launches.
    e.won = against_default ? BeatsDefault(xr, br, margin, o, &p) : Beats(xr, br, margin, o, &p);
    if (!e.won) p = MannWhitneyLess(xr.medians, br.medians);
    e.p_value = p;
    if (e.won) {
      won_any = true;
      p_won = std::max(p_won, p);
    }
    if (xr.Median() > (1 + o.regime_slack) * br.Median() ||
        SlowerInSomeLaunch(xr, br, o.margin)) {
      slower_any = true;
    }
    log_sum += std::log(xr.Median() / br.Median());
    ++n;
    v.evidence.push_back(e);
  }
  v.qualified = complete && won_any && !slower_any;
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
  SizeDecision d{bytes, static_cast<Algorithm>(choice), 1.0, {}};
  const Series& chosen = algorithms.at(choice);
  const Launches& def = def_series.sync();
  d.evidence.launches_default = static_cast<int>(def.medians.size());
  d.evidence.launches_algorithm = static_cast<int>(chosen.sync().medians.size());
  std::set<int64_t> campaigns;
  for (Regime r : kAllRegimes) {
    campaigns.insert(def_series.in(r).campaigns.begin(), def_series.in(r).campaigns.end());
    campaigns.insert(chosen.in(r).campaigns.begin(), chosen.in(r).campaigns.end());
  }
  d.evidence.campaigns.assign(campaigns.begin(), campaigns.end());
  if (choice == IndexOf(Algorithm::kDefault)) {
    d.evidence.p_value = 1;
    for (Regime r : kAllRegimes) {
      if (regimes & Bit(r)) d.evidence.regimes.push_back({r, 1.0, 1.0, false});
    }
    return d;
  }
  const RegimeVerdict& v = qualified[choice];
  d.evidence.p_value = v.p;
  d.evidence.regimes = v.evidence;
  d.speedup = v.score > 0 ? 1 / v.score : 1;
  return d;
}

// An irregular collective's points at one decided size (engine.h): each
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
      for (Regime r : kAllRegimes) {
        const Launches& d = def->second.in(r);
        const Launches& x = alg->second.in(r);
        double p;
        if (!d.empty() && !x.empty() && Beats(d, x, MarginOf(a, o), o, &p)) return true;
      }
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

// Runs of equal decisions become one range: geometric-mean speedup, the
// weakest evidence of its sizes.
void AppendRanges(Collective c, const std::vector<SizeDecision>& sizes,
                  std::vector<Decision>* out) {
  for (size_t i = 0; i < sizes.size();) {
    size_t j = i;
    double log_sum = 0;
    Decision d;
    d.evidence = sizes[i].evidence;
    while (j < sizes.size() && sizes[j].algorithm == sizes[i].algorithm) {
      log_sum += std::log(sizes[j].speedup);
      Weaken(&d.evidence, sizes[j].evidence);
      ++j;
    }
    d.rule.collective = c;
    d.rule.algorithm = sizes[i].algorithm;
    d.rule.speedup = std::exp(log_sum / static_cast<double>(j - i));
    d.rule.min_bytes = i == 0 ? 0 : Boundary(sizes[i - 1].bytes, sizes[i].bytes);
    d.rule.max_bytes = j == sizes.size()
                           ? kNoUpperBound
                           : Boundary(sizes[j - 1].bytes, sizes[j].bytes) - 1;
    out->push_back(std::move(d));
    i = j;
  }
}

// Lays `top` over the decisions of its collective: the parts of ranges it
// covers give way to it.
void Overlay(const Decision& top, std::vector<Decision>* decisions) {
  const Rule& t = top.rule;
  // A collective nothing decided yet still covers [0, inf): the sizes
  // around `top` run default, explicitly.
  bool any = false;
  for (const Decision& d : *decisions) any = any || d.rule.collective == t.collective;
  if (!any) {
    Decision whole;
    whole.rule.collective = t.collective;
    decisions->push_back(whole);
  }
  std::vector<Decision> out;
  for (Decision& d : *decisions) {
    const Rule& r = d.rule;
    if (r.collective != t.collective || r.max_bytes < t.min_bytes ||
        r.min_bytes > t.max_bytes) {
      out.push_back(d);
      continue;
    }
    if (r.min_bytes < t.min_bytes) {
      Decision left = d;
      left.rule.max_bytes = t.min_bytes - 1;
      out.push_back(left);
    }
    if (r.max_bytes > t.max_bytes) {
      Decision right = d;
      right.rule.min_bytes = t.max_bytes + 1;
      out.push_back(right);
    }
  }
  out.push_back(top);
  std::sort(out.begin(), out.end(), [](const Decision& a, const Decision& b) {
    return IndexOf(a.rule.collective) != IndexOf(b.rule.collective)
               ? IndexOf(a.rule.collective) < IndexOf(b.rule.collective)
               : a.rule.min_bytes < b.rule.min_bytes;
  });
  *decisions = std::move(out);
}

void Overlay(const PinnedRange& pin, std::vector<Decision>* decisions) {
  Decision p;
  p.rule.collective = pin.collective;
  p.rule.min_bytes = pin.min_bytes;
  p.rule.max_bytes = pin.max_bytes;
  p.rule.algorithm = pin.algorithm;
  p.rule.speedup = 0;  // not measured
  p.evidence.pinned = true;
  p.evidence.source = Source::kPin;
  Overlay(p, decisions);
}

// Neighbours with the same algorithm and source become one range (overlays
// split ranges; equal pieces must not look like changes).
void Merge(std::vector<Decision>* decisions) {
  std::vector<Decision> out;
  for (Decision& d : *decisions) {
    if (!out.empty()) {
      Decision& last = out.back();
      if (last.rule.collective == d.rule.collective &&
          last.rule.algorithm == d.rule.algorithm &&
          last.evidence.source == d.evidence.source &&
          last.evidence.pinned == d.evidence.pinned &&
          last.rule.max_bytes != kNoUpperBound &&
          last.rule.max_bytes + 1 == d.rule.min_bytes) {
        last.rule.max_bytes = d.rule.max_bytes;
        Weaken(&last.evidence, d.evidence);
        continue;
      }
    }
    out.push_back(d);
  }
  *decisions = std::move(out);
}

// The algorithm `decisions` give `bytes` of collective `c`.
Algorithm DecidedAt(const std::vector<Decision>& decisions, Collective c,
                    uint64_t bytes) {
  for (const Decision& d : decisions) {
    if (d.rule.collective == c && d.rule.min_bytes <= bytes &&
        bytes <= d.rule.max_bytes) {
      return d.rule.algorithm;
    }
  }
  return Algorithm::kDefault;
}

// True if every decided range meeting [lo, hi] of `c` says `a`.
bool DecidedThroughout(const std::vector<Decision>& decisions, Collective c,
                       uint64_t lo, uint64_t hi, Algorithm a) {
  bool covered = false;
  for (const Decision& d : decisions) {
    if (d.rule.collective != c || d.rule.max_bytes < lo || d.rule.min_bytes > hi) {
      continue;
    }
    covered = true;
    if (d.rule.algorithm != a) return false;
  }
  return covered || a == Algorithm::kDefault;
}

// The online decisions, one per size bucket where the current choice has
// enough jobs (see engine.h), laid over the campaign's.
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
    // Back to default within one job (engine.h): the campaign's choice for
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
          // Unauthenticated reports change no table (issue 30's rule).
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

std::string Range(const Rule& r) {
  return std::string(InfoOf(r.collective).name) + " " +
         std::to_string(r.min_bytes) + "-" +
         (r.max_bytes == kNoUpperBound ? std::string("inf")
                                       : std::to_string(r.max_bytes));
}

}  // namespace

std::string_view SourceName(Source s) {
  switch (s) {
    case Source::kOnline:
      return "online";
    case Source::kPin:
      return "pin";
    case Source::kCampaign:
      break;
  }
  return "campaign";
}

std::string_view ViolationKindName(ViolationKind k) {
  switch (k) {
    case ViolationKind::kSelection:
      return "selection";
    case ViolationKind::kMonotony:
      return "monotony";
    case ViolationKind::kGuideline:
      break;
  }
  return "guideline";
}

std::vector<Decision> ComputeDecisions(const std::vector<LaunchMedian>& points,
                                       const std::vector<JobMedian>& online,
                                       const std::vector<Rule>& current,
                                       const std::vector<PinnedRange>& pins,
                                       const EngineOptions& options) {
  return FinishDecisions(CampaignDecisions(points, current, options), online, current,
                         pins, options);
}

std::vector<Decision> CampaignDecisions(const std::vector<LaunchMedian>& points,
                                        const std::vector<Rule>& current,
                                        const EngineOptions& options) {
  std::vector<Decision> decisions;
  for (const auto& [c, sizes] : Group(points)) {
    const Collective coll = static_cast<Collective>(c);
    std::vector<SizeDecision> decided;
    for (const auto& [bytes, algorithms] : sizes) {
      if (!algorithms.count(IndexOf(Algorithm::kDefault))) continue;
      decided.push_back(DecideSize(coll, bytes, algorithms, current, options));
    }
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
      AppendRanges(coll, decided, &decisions);
      continue;
    }
    // No size key: one decision for every call on the communicator.
    if (auto d = DecideAcross(coll, 0, measured, current, options)) {
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
  return decisions;
}

std::vector<Decision> FinishDecisions(std::vector<Decision> decisions,
                                      const std::vector<JobMedian>& online,
                                      const std::vector<Rule>& current,
                                      const std::vector<PinnedRange>& pins,
                                      const EngineOptions& options) {
  ApplyOnline(online, current, options, &decisions);
  ApplyPins(pins, &decisions);
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
    if (a[i].collective != b[i].collective ||
        a[i].algorithm != b[i].algorithm || a[i].min_bytes != b[i].min_bytes ||
        a[i].max_bytes != b[i].max_bytes) {
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
  std::string out;
  for (int ci = 0; ci < kNumCollectives; ++ci) {
    const Collective c = static_cast<Collective>(ci);
    std::set<uint64_t> starts = {0};
    for (const auto* rules : {&before, &after}) {
      for (const Rule& r : *rules) {
        if (r.collective != c) continue;
        starts.insert(r.min_bytes);
        if (r.max_bytes != kNoUpperBound) starts.insert(r.max_bytes + 1);
      }
    }
    struct Piece {
      uint64_t min, max;
      Algorithm was, now;
    };
    std::vector<Piece> pieces;
    for (auto it = starts.begin(); it != starts.end(); ++it) {
      auto next = std::next(it);
      const uint64_t max = next == starts.end() ? kNoUpperBound : *next - 1;
      const int64_t at = static_cast<int64_t>(*it);
      Piece piece{*it, max, CurrentChoice(before, c, at), CurrentChoice(after, c, at)};
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
      out += Range(Rule{c, p.min, p.max, p.now, 0}) + ": " +
             std::string(InfoOf(p.was).name) + " -> " +
             std::string(InfoOf(p.now).name);
    }
  }
  return out;
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
