#include "common/evaluation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "common/layout_class.h"
#include "common/stats.h"

namespace colltune::evaluation {
namespace {

std::string Name(Algorithm a) { return std::string(InfoOf(a).name); }

// The median over launches of each algorithm's per-launch values, and the
// launch each came from (a regime specialist is timed only in the launches
// whose screen kept it).
struct Combined {
  std::vector<double> median, even, odd;
  std::vector<int> launch;
};

// The oracle picked without the launch it is timed in: for each launch k,
// the candidate fastest by the median of its other launches' medians,
// timed in launch k; the median over k. A launch's placement moves every
// candidate at once, and the fastest of some fifty candidates in the same
// launches is fast partly by that launch's luck (the winner's curse, which
// halving the repetitions inside a launch cannot remove). 0 where no launch
// has a candidate timed in it and in another.
double CrossLaunchOracle(const std::map<int, Combined>& candidates) {
  std::set<int> launches;
  for (const auto& [a, c] : candidates) launches.insert(c.launch.begin(), c.launch.end());
  std::vector<double> timed;
  for (int k : launches) {
    double best = 0, at_k = 0;
    for (const auto& [a, c] : candidates) {
      std::vector<double> others;
      double mine = 0;
      for (size_t i = 0; i < c.launch.size(); ++i) {
        if (c.launch[i] == k) {
          mine = c.median[i];
        } else {
          others.push_back(c.median[i]);
        }
      }
      if (mine <= 0 || others.empty()) continue;
      const double m = Median(others);
      if (best == 0 || m < best) best = m, at_k = mine;
    }
    if (at_k > 0) timed.push_back(at_k);
  }
  return timed.empty() ? 0 : Median(timed);
}

// The paired oracle (PointVerdict::vs_oracle_paired): per candidate, the
// median over the launches it shares with tuned of its time over tuned's
// there; the smallest, and no more than 1 (tuned's own algorithm is among
// the candidates wherever the table runs one, so a table that chose the
// fastest is level with it). Candidates timed in no more than half of
// tuned's launches (screened specialists) are left out: one launch's ratio
// is that launch's luck.
double PairedOracle(const std::map<int, Combined>& candidates, const Combined& tuned) {
  std::map<int, double> tuned_in;
  for (size_t i = 0; i < tuned.launch.size(); ++i) {
    if (tuned.median[i] > 0) tuned_in[tuned.launch[i]] = tuned.median[i];
  }
  if (tuned_in.empty()) return 0;
  double best = 1;
  for (const auto& [a, c] : candidates) {
    std::vector<double> ratios;
    for (size_t i = 0; i < c.launch.size(); ++i) {
      const auto t = tuned_in.find(c.launch[i]);
      if (t != tuned_in.end() && c.median[i] > 0) ratios.push_back(c.median[i] / t->second);
    }
    if (2 * ratios.size() <= tuned_in.size()) continue;
    best = std::min(best, Median(ratios));
  }
  return best;
}

}  // namespace

std::string PointName(Collective c, const std::string& layout) {
  return std::string(InfoOf(c).name) + (layout.empty() ? "" : "@" + layout);
}

std::string FormatRecord(const PointRecord& r) {
  std::ostringstream out;
  out.precision(9);
  out << "point " << PointName(r.collective, r.layout) << " " << r.bytes << " "
      << InfoOf(r.tuned).name << " " << r.candidates.size() + 1;
  auto series = [&](const char* name, const SeriesMedians& s) {
    out << " " << name << " " << s.median << " " << s.even << " " << s.odd;
  };
  for (const SeriesMedians& s : r.candidates) series(Name(s.algorithm).c_str(), s);
  series("tuned", r.tuned_series);
  if (r.regime != Regime::kSync) out << " " << NameOf(r.regime);
  return out.str();
}

bool ParseRecord(const std::string& line, PointRecord* r, std::string* error) {
  std::istringstream in(line);
  std::string word, coll, tuned;
  size_t n = 0;
  if (!(in >> word >> coll >> r->bytes >> tuned >> n) || word != "point" || n < 2 ||
      n > 1000) {
    *error = "not a point record";
    return false;
  }
  r->layout.clear();
  if (const size_t at = coll.find('@'); at != std::string::npos) {
    const std::optional<LayoutKey> key = ParseLayoutKey(coll.substr(at + 1));
    if (!key || !IsRuleLayout(*key)) {
      *error = "unknown datatype layout in '" + coll.substr(0, 64) + "'";
      return false;
    }
    r->layout = FormatLayoutKey(*key);
    coll.resize(at);
  }
  auto c = ParseCollective(coll);
  auto t = c ? ParseAlgorithm(tuned, *c) : std::nullopt;
  if (!c || !t) {
    *error = "unknown collective or algorithm in '" + coll + " " + tuned + "'";
    return false;
  }
  r->collective = *c;
  r->tuned = *t;
  r->candidates.clear();
  for (size_t i = 0; i < n; ++i) {
    std::string name;
    SeriesMedians s;
    if (!(in >> name >> s.median >> s.even >> s.odd)) {
      *error = "point record cut short";
      return false;
    }
    if (i + 1 == n) {
      if (name != "tuned") {
        *error = "the last series of a point record must be 'tuned'";
        return false;
      }
      s.algorithm = r->tuned;
      r->tuned_series = s;
      continue;
    }
    auto a = ParseAlgorithm(name, *c);
    if (!a) {
      *error = "unknown algorithm '" + name + "' of " + coll;
      return false;
    }
    s.algorithm = *a;
    r->candidates.push_back(s);
  }
  if (r->candidates.front().algorithm != Algorithm::kDefault) {
    *error = "the first series of a point record must be default";
    return false;
  }
  r->regime = Regime::kSync;
  std::string regime, extra;
  if (in >> regime) {
    const std::optional<Regime> parsed = ParseRegime(regime);
    if (!parsed || regime.empty() || (in >> extra)) {
      *error = "unexpected '" + regime.substr(0, 32) + "' after a point record's series";
      return false;
    }
    r->regime = *parsed;
  }
  return true;
}

RegimeSet RegimesIn(const std::vector<std::vector<PointRecord>>& launches) {
  RegimeSet set = kSyncOnly;
  for (const auto& launch : launches) {
    for (const PointRecord& r : launch) set |= Bit(r.regime);
  }
  return set;
}

bool HasDatatypes(const std::vector<std::vector<PointRecord>>& launches) {
  for (const auto& launch : launches) {
    for (const PointRecord& r : launch) {
      if (!r.layout.empty()) return true;
    }
  }
  return false;
}

Summary Summarize(const std::vector<std::vector<PointRecord>>& launches, double margin,
                  double alpha, Regime regime, Grid grid) {
  // (collective, layout, bytes) -> algorithm -> per-launch values; tuned apart.
  struct Acc {
    Algorithm tuned = Algorithm::kDefault;
    std::map<int, Combined> candidates;
    Combined tuned_series;
    int launches = 0;
  };
  std::map<std::tuple<int, std::string, int64_t>, Acc> by_point;
  for (size_t l = 0; l < launches.size(); ++l) {
    for (const PointRecord& r : launches[l]) {
      if (r.regime != regime || r.layout.empty() != (grid == Grid::kContiguous)) continue;
      Acc& acc = by_point[{IndexOf(r.collective), r.layout, r.bytes}];
      acc.tuned = r.tuned;
      ++acc.launches;
      for (const SeriesMedians& s : r.candidates) {
        Combined& c = acc.candidates[IndexOf(s.algorithm)];
        c.median.push_back(s.median);
        c.even.push_back(s.even);
        c.odd.push_back(s.odd);
        c.launch.push_back(static_cast<int>(l));
      }
      acc.tuned_series.median.push_back(r.tuned_series.median);
      acc.tuned_series.even.push_back(r.tuned_series.even);
      acc.tuned_series.odd.push_back(r.tuned_series.odd);
      acc.tuned_series.launch.push_back(static_cast<int>(l));
    }
  }
  Summary s;
  for (const auto& [key, acc] : by_point) {
    auto def = acc.candidates.find(IndexOf(Algorithm::kDefault));
    if (def == acc.candidates.end()) continue;
    PointVerdict v;
    v.collective = static_cast<Collective>(std::get<0>(key));
    v.layout = std::get<1>(key);
    v.bytes = std::get<2>(key);
    v.tuned = acc.tuned;
    v.launches = acc.launches;
    v.t_default = Median(def->second.median);
    v.t_tuned = Median(acc.tuned_series.median);
    v.t_oracle = v.t_default;
    double pick_even = Median(def->second.even);
    int pick = IndexOf(Algorithm::kDefault);
    for (const auto& [a, c] : acc.candidates) {
      const double t = Median(c.median);
      if (t < v.t_oracle) {
        v.t_oracle = t;
        v.oracle = static_cast<Algorithm>(a);
      }
      const double e = Median(c.even);
      if (e < pick_even) pick_even = e, pick = a;
    }
    v.t_oracle_cv = Median(acc.candidates.at(pick).odd);
    v.t_tuned_cv = Median(acc.tuned_series.odd);
    v.t_oracle_xl = CrossLaunchOracle(acc.candidates);
    v.vs_oracle_paired = PairedOracle(acc.candidates, acc.tuned_series);
    double p;
    v.slower = v.t_tuned * (1 - margin) > v.t_default;
    v.significantly_slower = SignificantlyFaster(def->second.median, acc.tuned_series.median,
                                                 alpha, margin, &p);
    s.points.push_back(v);
  }
  if (s.points.empty()) return s;
  std::vector<double> vs_oracle, vs_oracle_cv, vs_oracle_xl, vs_oracle_paired, vs_default;
  double penalty = 0, penalty_cv = 0, log_speedup = 0;
  for (const PointVerdict& v : s.points) {
    const double o = v.t_oracle / v.t_tuned, cv = v.t_oracle_cv / v.t_tuned_cv;
    vs_oracle.push_back(o);
    vs_oracle_cv.push_back(cv);
    vs_default.push_back(v.t_default / v.t_tuned);
    if (v.t_oracle_xl > 0) vs_oracle_xl.push_back(v.t_oracle_xl / v.t_tuned);
    if (v.vs_oracle_paired > 0) vs_oracle_paired.push_back(v.vs_oracle_paired);
    penalty += std::max(0.0, 1 - o);
    penalty_cv += std::max(0.0, 1 - cv);
    log_speedup += std::log(v.t_default / v.t_tuned);
    if (s.worst == nullptr || o < s.worst->t_oracle / s.worst->t_tuned) s.worst = &v;
    if (s.worst_cv == nullptr || cv < s.worst_cv->t_oracle_cv / s.worst_cv->t_tuned_cv) {
      s.worst_cv = &v;
    }
    if (v.tuned != Algorithm::kDefault) {
      ++s.changed;
      s.slower_than_default += v.slower;
      s.significantly_slower += v.significantly_slower;
    } else {
      ++s.unchanged;
      s.unchanged_slower += v.slower;
      s.unchanged_significantly_slower += v.significantly_slower;
    }
  }
  const double n = static_cast<double>(s.points.size());
  s.median_vs_oracle = Median(vs_oracle);
  s.worst_vs_oracle = s.worst->t_oracle / s.worst->t_tuned;
  s.mean_penalty = penalty / n;
  s.median_vs_oracle_cv = Median(vs_oracle_cv);
  s.worst_vs_oracle_cv = s.worst_cv->t_oracle_cv / s.worst_cv->t_tuned_cv;
  s.mean_penalty_cv = penalty_cv / n;
  s.cross_launch_points = static_cast<int>(vs_oracle_xl.size());
  if (!vs_oracle_xl.empty()) s.median_vs_oracle_xl = Median(vs_oracle_xl);
  if (!vs_oracle_paired.empty()) s.median_vs_oracle_paired = Median(vs_oracle_paired);
  s.geomean_speedup = std::exp(log_speedup / n);
  s.median_vs_default = Median(vs_default);
  return s;
}

namespace {

// The regimes the records hold, in kAllRegimes order.
std::vector<Regime> RegimeOrder(const std::vector<std::vector<PointRecord>>& launches) {
  const RegimeSet regimes = RegimesIn(launches);
  std::vector<Regime> order;
  for (Regime r : kAllRegimes) {
    if (regimes & Bit(r)) order.push_back(r);
  }
  return order;
}

}  // namespace

std::vector<SingleChoice> BestSingleChoices(
    const std::vector<std::vector<PointRecord>>& launches, Grid grid, double slack) {
  const std::vector<Regime> order = RegimeOrder(launches);
  // point -> regime (index into order) -> algorithm -> per-launch medians;
  // the tuned series under the key -1.
  using Key = std::tuple<int, std::string, int64_t>;
  std::map<Key, std::vector<std::map<int, std::vector<double>>>> times;
  std::map<Key, Algorithm> tuned;
  for (const std::vector<PointRecord>& launch : launches) {
    for (const PointRecord& r : launch) {
      if (r.layout.empty() != (grid == Grid::kContiguous)) continue;
      const size_t i = std::find(order.begin(), order.end(), r.regime) - order.begin();
      const Key key{IndexOf(r.collective), r.layout, r.bytes};
      auto& per_regime = times[key];
      per_regime.resize(order.size());
      for (const SeriesMedians& c : r.candidates) {
        per_regime[i][IndexOf(c.algorithm)].push_back(c.median);
      }
      per_regime[i][-1].push_back(r.tuned_series.median);
      tuned[key] = r.tuned;
    }
  }
  const int def = IndexOf(Algorithm::kDefault);
  std::vector<SingleChoice> out;
  for (const auto& [key, per_regime] : times) {
    SingleChoice p;
    p.collective = static_cast<Collective>(std::get<0>(key));
    p.layout = std::get<1>(key);
    p.bytes = std::get<2>(key);
    p.tuned = tuned[key];
    // Each algorithm's time per regime; only those timed in every regime.
    std::map<int, std::vector<double>> t;
    bool complete = true;
    for (const auto& by_algorithm : per_regime) {
      if (!by_algorithm.count(def) || !by_algorithm.count(-1)) complete = false;
    }
    if (!complete) continue;
    for (const auto& [a, v] : per_regime[0]) {
      std::vector<double> row;
      for (const auto& by_algorithm : per_regime) {
        auto it = by_algorithm.find(a);
        if (it == by_algorithm.end()) break;
        row.push_back(Median(it->second));
      }
      if (row.size() == order.size()) t[a] = std::move(row);
    }
    const std::vector<double>& d = t.at(def);
    if (std::any_of(d.begin(), d.end(), [](double x) { return x <= 0; })) continue;
    int best = def;
    double best_score = 0;  // log of the geometric mean over default's
    for (const auto& [a, row] : t) {
      if (a < 0 || a == def) continue;
      double score = 0;
      bool allowed = true;
      for (size_t i = 0; i < order.size(); ++i) {
        allowed = allowed && row[i] > 0 && row[i] <= (1 + slack) * d[i];
        if (row[i] > 0) score += std::log(row[i] / d[i]);
      }
      if (allowed && score < best_score) best = a, best_score = score;
    }
    p.best = static_cast<Algorithm>(best);
    p.t_default = d;
    p.t_tuned = t.at(-1);
    p.t_best = t.at(best);
    for (size_t i = 0; i < order.size(); ++i) {
      int oracle = def;
      for (const auto& [a, row] : t) {
        if (a >= 0 && row[i] > 0 && row[i] < t.at(oracle)[i]) oracle = a;
      }
      double worst = 0;
      for (size_t j = 0; j < order.size(); ++j) worst = std::max(worst, t.at(oracle)[j] / d[j]);
      p.regime_oracle.push_back(static_cast<Algorithm>(oracle));
      p.t_regime_oracle.push_back(t.at(oracle)[i]);
      p.regime_oracle_worst.push_back(worst);
    }
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

// "evaluate:" for sync (what scripts grep), "evaluate[loop]:" otherwise;
// "evaluate[datatypes]:", "evaluate[datatypes,loop]:" for the datatype grid.
std::string Prefix(Regime r, Grid grid) {
  std::string tags = grid == Grid::kDatatypes ? "datatypes" : "";
  if (r != Regime::kSync) tags += (tags.empty() ? "" : ",") + std::string(NameOf(r));
  return tags.empty() ? "evaluate:" : "evaluate[" + tags + "]:";
}

std::string Label(const PointVerdict& v) { return PointName(v.collective, v.layout); }

// The "evaluate[one choice]:" lines of one grid's points (BestSingleChoices).
std::string OneChoiceLines(const std::vector<SingleChoice>& points,
                           const std::vector<Regime>& order, Grid grid, double slack) {
  if (points.empty()) return "";
  std::string pre = Prefix(Regime::kSync, grid);
  pre = pre == "evaluate:" ? "evaluate[one choice]:"
                           : pre.substr(0, pre.size() - 2) + ",one choice]:";
  const int pct = static_cast<int>(std::lround(100 * slack));
  char buf[512];
  std::string text = pre + " tuned against the best single choice (one algorithm per point "
                     "for every regime, at most " + std::to_string(pct) +
                     " % slower than default in any): median";
  const SingleChoice* worst = nullptr;
  size_t worst_regime = 0;
  double worst_ratio = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    std::vector<double> ratios;
    for (const SingleChoice& p : points) {
      if (p.t_tuned[i] <= 0) continue;
      const double r = p.t_best[i] / p.t_tuned[i];
      ratios.push_back(r);
      if (worst == nullptr || r < worst_ratio) worst = &p, worst_regime = i, worst_ratio = r;
    }
    snprintf(buf, sizeof buf, "%s %s %.3f", i == 0 ? "" : ",",
             std::string(NameOf(order[i])).c_str(), Median(ratios));
    text += buf;
  }
  if (worst != nullptr) {
    snprintf(buf, sizeof buf, "; worst %.3f (%s %lld B %s: tuned runs %s, the best single "
             "choice %s)", worst_ratio, PointName(worst->collective, worst->layout).c_str(),
             static_cast<long long>(worst->bytes),
             std::string(NameOf(order[worst_regime])).c_str(), Name(worst->tuned).c_str(),
             Name(worst->best).c_str());
    text += buf;
  }
  text += "\n";
  // Where a regime's own oracle is out of a table's reach, and the farthest.
  int out_of_reach = 0;
  const SingleChoice* far = nullptr;
  size_t far_regime = 0;
  double far_gap = 1;
  for (const SingleChoice& p : points) {
    bool counted = false;
    for (size_t i = 0; i < order.size(); ++i) {
      if (p.regime_oracle_worst[i] <= 1 + slack || p.t_best[i] <= 0) continue;
      if (!counted) ++out_of_reach, counted = true;
      const double gap = p.t_regime_oracle[i] / p.t_best[i];
      if (gap < far_gap) far = &p, far_regime = i, far_gap = gap;
    }
  }
  snprintf(buf, sizeof buf, "%s a regime's own oracle is more than %d %% slower than "
           "default in another regime, so out of any table's reach, at %d of %zu points",
           pre.c_str(), pct, out_of_reach, points.size());
  text += buf;
  if (far != nullptr) {
    const size_t i = far_regime;
    snprintf(buf, sizeof buf, "; the farthest: %s %lld B %s, where %s runs %.2fx faster "
             "than default but up to %.2fx slower elsewhere (the best single choice, %s, "
             "runs %.2fx faster there)",
             PointName(far->collective, far->layout).c_str(),
             static_cast<long long>(far->bytes), std::string(NameOf(order[i])).c_str(),
             Name(far->regime_oracle[i]).c_str(),
             far->t_default[i] / far->t_regime_oracle[i], far->regime_oracle_worst[i],
             Name(far->best).c_str(), far->t_default[i] / far->t_best[i]);
    text += buf;
  }
  return text + "\n";
}

}  // namespace

void PrintSummary(const Summary& s, size_t natives, int launches, Regime regime,
                  Grid grid) {
  const std::string pre = Prefix(regime, grid);
  if (s.points.empty()) {
    printf("%s no points measured\n", pre.c_str());
    return;
  }
  const std::string over =
      launches > 1 ? " over " + std::to_string(launches) + " launches (medians of "
                                                            "per-launch medians)"
                   : "";
  const PointVerdict& w = *s.worst;
  const PointVerdict& wc = *s.worst_cv;
  printf("%s tuned/oracle median %.3f, worst %.3f (%s %lld B%s), mean penalty "
         "%.1f %%; oracle includes %zu native algorithms%s%s\n",
         pre.c_str(), s.median_vs_oracle, s.worst_vs_oracle, Label(w).c_str(),
         static_cast<long long>(w.bytes),
         w.tuned == w.oracle ? ", where tuned runs the oracle's algorithm: noise" : "",
         100 * s.mean_penalty, natives,
         natives == 0 ? " (none measured: --no-native, or the library lets colltune "
                        "force none here)"
                      : "",
         over.c_str());
  printf("%s cross-validated (oracle picked on half the repetitions, timed on the "
         "other half): tuned/oracle median %.3f, worst %.3f (%s %lld B), mean penalty "
         "%.1f %%\n",
         pre.c_str(), s.median_vs_oracle_cv, s.worst_vs_oracle_cv,
         Label(wc).c_str(), static_cast<long long>(wc.bytes),
         100 * s.mean_penalty_cv);
  if (s.cross_launch_points > 0) {
    printf("%s cross-launch (oracle picked on the other launches, timed in each): "
           "tuned/oracle median %.3f over %d points\n",
           pre.c_str(), s.median_vs_oracle_xl, s.cross_launch_points);
  }
  if (launches > 1 && s.median_vs_oracle_paired > 0) {
    printf("%s paired (each candidate's time over tuned's in the same launch, median over "
           "launches; the fastest candidate): tuned/oracle median %.3f\n",
           pre.c_str(), s.median_vs_oracle_paired);
  }
  printf("%s speedup over default, geometric mean %.3f, median tuned/default %.3f\n",
         pre.c_str(), s.geomean_speedup, s.median_vs_default);
  // Where the table changes the algorithm: what it buys and what it costs.
  double log_changed = 0, worst_changed = 0;
  const PointVerdict* worst = nullptr;
  int changed = 0;
  for (const PointVerdict& v : s.points) {
    if (v.tuned == Algorithm::kDefault || v.t_tuned <= 0) continue;
    const double r = v.t_default / v.t_tuned;
    log_changed += std::log(r);
    if (worst == nullptr || r < worst_changed) worst = &v, worst_changed = r;
    ++changed;
  }
  if (changed > 0) {
    printf("%s where the table changes the algorithm (%d points): speedup over default, "
           "geometric mean %.3f, worst %.3f (%s %lld B)\n",
           pre.c_str(), changed, std::exp(log_changed / changed), worst_changed,
           Label(*worst).c_str(), static_cast<long long>(worst->bytes));
  }
}

void PrintSlowerThanDefault(const Summary& s, int launches, double margin, double alpha,
                            Regime regime, Grid grid) {
  const int pct = static_cast<int>(std::lround(100 * margin));
  const std::string pre = Prefix(regime, grid);
  printf("%s points where tuned's median is more than %d %% slower than default's: "
         "%d (of %d where the table changes the algorithm); where it keeps default, "
         "default timed twice: %d of %d (the noise floor)\n",
         pre.c_str(), pct, s.slower_than_default, s.changed, s.unchanged_slower, s.unchanged);
  if (launches < 3) {
    printf("%s significance over launches needs at least 3 launches "
           "(--launches 3)\n", pre.c_str());
    return;
  }
  printf("%s points where tuned is significantly slower than default over the %d "
         "launches (one-sided Mann-Whitney of their medians at %.2g, and by %d %%): %d "
         "(of %d); default against itself: %d (of %d)\n",
         pre.c_str(), launches, alpha, pct, s.significantly_slower, s.changed,
         s.unchanged_significantly_slower, s.unchanged);
}

void PrintRegimeTable(const std::vector<std::vector<PointRecord>>& launches, double margin,
                      double alpha, double slack) {
  const std::vector<Regime> order = RegimeOrder(launches);
  if (order.size() <= 1) return;
  printf("\ntuned/default (and tuned/oracle) in each regime: sync (a barrier before each "
         "call), loop (back to back), imbalance (after uneven work)\n");
  printf("%-22s %9s %-42s", "collective", "bytes", "tuned");
  for (Regime r : order) printf(" %18s", std::string(NameOf(r)).c_str());
  printf("  verdict\n");
  std::string after;  // the one-choice lines, after the table
  for (Grid grid : {Grid::kContiguous, Grid::kDatatypes}) {
    // summaries[i]: regime order[i]'s, and its verdicts by point.
    std::vector<Summary> summaries;
    summaries.reserve(order.size());
    std::vector<std::map<std::tuple<int, std::string, int64_t>, const PointVerdict*>> verdicts(
        order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      summaries.push_back(Summarize(launches, margin, alpha, order[i], grid));
    }
    for (size_t i = 0; i < order.size(); ++i) {
      for (const PointVerdict& v : summaries[i].points) {
        verdicts[i][{IndexOf(v.collective), v.layout, v.bytes}] = &v;
      }
    }
    for (const PointVerdict& v : summaries[0].points) {
      // What the table runs: a regime switch (docs/architecture.md) names
      // another algorithm in its regime, "default (loop: native:brucks)".
      std::string tuned(InfoOf(v.tuned).name);
      bool changes = v.tuned != Algorithm::kDefault;
      for (size_t i = 1; i < order.size(); ++i) {
        auto it = verdicts[i].find({IndexOf(v.collective), v.layout, v.bytes});
        if (it == verdicts[i].end() || it->second->tuned == v.tuned) continue;
        tuned += " (" + std::string(NameOf(order[i])) + ": " +
                 std::string(InfoOf(it->second->tuned).name) + ")";
        changes = changes || it->second->tuned != Algorithm::kDefault;
      }
      printf("%-22s %9lld %-42s", Label(v).c_str(), static_cast<long long>(v.bytes),
             tuned.c_str());
      bool slower = false, faster = false, complete = true;
      for (size_t i = 0; i < order.size(); ++i) {
        auto it = verdicts[i].find({IndexOf(v.collective), v.layout, v.bytes});
        if (it == verdicts[i].end() || it->second->t_tuned <= 0) {
          printf(" %18s", "-");
          complete = false;
          continue;
        }
        const PointVerdict& x = *it->second;
        const double vs_def = x.t_default / x.t_tuned;
        printf("   %6.3f (%6.3f)", vs_def, x.t_oracle / x.t_tuned);
        slower = slower || x.slower;
        faster = faster || vs_def * (1 - margin) > 1;
      }
      const char* verdict = !changes                      ? "default kept"
                            : slower                        ? "SLOWER in a regime"
                            : !complete                     ? "not timed in every regime"
                            : faster                        ? "faster"
                                                            : "level";
      printf("  %s\n", verdict);
    }
    after += OneChoiceLines(BestSingleChoices(launches, grid, slack), order, grid, slack);
  }
  printf("%s", after.c_str());
}

}  // namespace colltune::evaluation
