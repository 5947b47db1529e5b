// Evaluation: does the decision table do what it promises? For every
// collective and size, in one job and interleaved: `default`, every eligible
// mock-up, every one of the library's own algorithms it lets colltune force
// (native:<name>, as Runnable() lists them; none with --no-native), and
// `tuned` (the algorithm the table gives this call, exactly as the shim
// chooses it: forced, else the communicator's section, else default, and
// default when the choice is not eligible). Per point it reports
// tuned/default and tuned/oracle as speed ratios (time of the other / time of
// tuned), the oracle being the fastest algorithm measured at that point, the
// library's own algorithms included: a table that only matches the library's
// default selection is not called optimal when the library has a faster
// algorithm of its own. The penalty of a point is 1 - t_oracle / t_tuned
// (what running the table costs against the oracle), 0 where tuned measured
// faster than the oracle: the two series then differ by noise only.
//
// "A is significantly faster than B" is the engine's own rule (one-sided
// Mann-Whitney at alpha, and at least the margin faster), applied to the
// repetitions of this job:
//  * seen: the best alternative to default (a mock-up or a native algorithm)
//    is significantly faster than default in this job;
//  * established: the campaign found the violation over its launches (the
//    daemon's guideline and selection violations, beyond the margin): what
//    the table must repair. One job alone cannot tell a violation from the
//    state of one launch (on an oversubscribed node, which ranks share a core
//    changes from launch to launch, and with it the winners);
//  * repaired: tuned is not significantly slower than the best alternative;
//  * regression: the table changed the algorithm and tuned is significantly
//    slower than default;
//  * A/A: where tuned is default, the two series run the same code; their
//    significant differences measure the noise floor of the method.
#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "bench/measure.h"
#include "bench/options.h"
#include "bench/regimes.h"
#include "bench/table_choice.h"
#include "client/client.h"
#include "common/evaluation.h"
#include "common/layout.h"
#include "common/problems.h"
#include "common/stats.h"
#include "common/table.h"

namespace colltune::bench {

using evaluation::FormatRecord;
using evaluation::PointRecord;
using evaluation::PrintRegimeTable;
using evaluation::PrintSlowerThanDefault;
using evaluation::PrintSummary;
using evaluation::RegimesIn;
using evaluation::SeriesMedians;
using evaluation::Summarize;
using evaluation::Summary;
namespace {

// A point of the evaluation: (collective, layout, bytes); the layout is
// empty for contiguous data.
using PointKey = std::tuple<int, std::string, int64_t>;

// Rank 0: the guideline and selection violations the daemon established for
// this job's profile, beyond the margin, as points (seed 003's with their
// layout). All are default beaten by an algorithm the table can choose
// instead.
std::set<PointKey> Established(const Options& o, const Bench& b) {
  std::set<PointKey> out;
  if (o.server.empty()) return out;
  auto stub = client::Connect(o.server);
  v1::ListProfilesRequest list;
  list.set_cluster(o.cluster);
  list.set_library(b.context.library);
  v1::ListProfilesResponse profiles;
  auto rpc = client::WithDeadline(std::chrono::milliseconds(o.timeout_ms));
  if (!stub->ListProfiles(rpc.get(), list, &profiles).ok()) return out;
  for (const v1::ProfileSummary& p : profiles.profiles()) {
    const v1::Context& c = p.context();
    if (c.library_version() != b.context.library_version ||
        c.comm_size() != b.context.comm_size || c.nodes() != b.context.nodes ||
        c.ppn() != b.context.ppn || c.placement() != b.context.placement ||
        c.node_sizes() != b.context.node_sizes) {
      continue;
    }
    v1::GetViolationsRequest request;
    request.set_profile_id(p.id());
    v1::GetViolationsResponse violations;
    auto rpc2 = client::WithDeadline(std::chrono::milliseconds(o.timeout_ms));
    if (!stub->GetViolations(rpc2.get(), request, &violations).ok()) continue;
    for (const v1::Violation& v : violations.violations()) {
      auto coll = ParseCollective(v.collective());
      if ((v.kind() == "guideline" || v.kind() == "selection") && coll &&
          v.factor() * (1 - o.margin) >= 1.0) {
        out.insert({IndexOf(*coll), v.layout(), v.msg_bytes()});
      }
    }
  }
  return out;
}

// The layout key of a workload's derived datatype ("tiled/8B"), or "".
std::string LayoutOf(const Workload& w) {
  return w.layout_problem().empty() ? std::string() : w.layout_problem().substr(1);
}

// A series' median and the medians of its even- and odd-numbered
// repetitions (interleaved, so both halves span the same time), for the
// cross-validated oracle (common/evaluation.h).
SeriesMedians SeriesOf(Algorithm a, const std::vector<double>& v) {
  auto half = [&](size_t parity) {
    std::vector<double> out;
    for (size_t i = parity; i < v.size(); i += 2) out.push_back(v[i]);
    return out.empty() ? v : out;
  };
  return SeriesMedians{a, Median(v), Median(half(0)), Median(half(1))};
}

// The point's records in the regimes besides sync (common/regime.h): default,
// the candidates that may win (bench/regimes.h, RegimeCandidates: the others
// lost badly from a barrier and cannot be the oracle there either), the
// table's choice, and `tuned` as a series of its own, all with the same
// repetitions. Collective: every rank calls it alike; rank 0 gets records.
std::vector<PointRecord> OtherRegimes(const Options& o, const Bench& b, Workload& w,
                                      const std::vector<Algorithm>& algorithms,
                                      const std::vector<std::vector<double>>& sync,
                                      const TableChoice& choice, int sync_reps,
                                      uint64_t seed) {
  std::vector<PointRecord> out;
  if ((o.regime.regimes & ~kSyncOnly) == 0 || algorithms.empty()) return out;
  std::vector<double> medians(algorithms.size());
  for (size_t a = 0; a < algorithms.size(); ++a) medians[a] = Median(sync[a]);
  std::vector<Algorithm> base;
  for (size_t i : RegimeCandidates(o.regime, medians, FamiliesOf(algorithms))) {
    base.push_back(algorithms[i]);
  }
  // The candidates the prune left out, screened per regime as campaigns
  // screen them (a regime's oracle may be its specialist).
  const std::vector<Algorithm> others =
      SpecialistCandidates(o.regime, algorithms, medians, base);
  const RegimePlan plan = PlanFromProbe(o.regime, w, sync_reps, medians[0], b.comm);
  // Each rank's work before a call under imbalance, as campaigns size it
  // (campaign.cc): up to default's back-to-back time.
  double work = medians[0];
  bool warm = false;  // the series ran at this point in a regime before
  for (Regime r : {Regime::kLoop, Regime::kImbalance}) {
    if (!(o.regime.regimes & Bit(r))) continue;
    // What the table runs here, in this regime (its switch, if it has one).
    const Algorithm tuned = choice.For(w, r);
    std::vector<Algorithm> series = base;
    AddSpecialists(o.regime, w, others, r, plan, work, seed, b.comm, &series);
    if (std::find(series.begin(), series.end(), tuned) == series.end()) series.push_back(tuned);
    const size_t candidates = series.size();
    series.push_back(tuned);  // measured as a series of its own
    std::vector<int> rc;
    const std::vector<std::vector<double>> samples =
        MeasureRegime(w, series, r, plan.RepsIn(r), plan.calls, work,
                      seed ^ (0x7e91ull << IndexOf(r)), warm, b.comm, &rc);
    warm = true;
    if (r == Regime::kLoop && Median(samples[0]) > 0) work = Median(samples[0]);
    if (b.rank != 0) continue;
    PointRecord record;
    record.collective = w.collective();
    record.layout = LayoutOf(w);
    record.bytes = w.bytes();
    record.tuned = tuned;
    record.regime = r;
    for (size_t a = 0; a < candidates; ++a) {
      record.candidates.push_back(SeriesOf(series[a], samples[a]));
    }
    record.tuned_series = SeriesOf(tuned, samples.back());
    out.push_back(std::move(record));
  }
  return out;
}

struct Point {
  Collective collective;
  std::string layout;  // empty for contiguous data
  int64_t bytes;
  Algorithm best = Algorithm::kDefault, oracle = Algorithm::kDefault;
  Algorithm tuned = Algorithm::kDefault;
  double t_default = 0, t_best = 0, t_oracle = 0, t_tuned = 0;
  bool seen = false, established = false, repaired = true;
  bool regression = false, aa_differs = false;
};

}  // namespace

int RunEvaluate(const Options& o, Bench& b) {
  Table table;
  if (!LoadTable(o, b, &table)) return 1;
  const TableChoice choice(table, b.size);

  const std::set<PointKey> established = b.rank == 0 ? Established(o, b) : std::set<PointKey>();
  std::vector<Point> points;
  std::vector<PointRecord> records;
  std::set<int> natives;  // the library's own algorithms measured, any point
  for (Collective c : b.collectives) {
    // Irregular collectives are evaluated at one distribution, random block
    // sizes (seed 000's "random"), over their sizes: the campaign measured
    // all six, and a decision had to hold over all of them.
    const CollectiveInfo& info = InfoOf(c);
    const std::optional<Problem> problem =
        info.irregular ? std::optional<Problem>(Problem::kRandom) : std::nullopt;
    const std::vector<int64_t>& sizes =
        !info.irregular                     ? b.sizes
        : info.key == SizeKey::kTotalBytes ? b.total_sizes
                                            : b.irregular_sizes;
    // The contiguous sizes, then seed 003's datatype grid (--datatypes)
    // where the collective has datatype forms.
    std::vector<std::pair<int64_t, std::optional<DatatypeSpec>>> wanted;
    for (int64_t requested : sizes) wanted.push_back({requested, std::nullopt});
    if (HasDatatypeForms(c)) {
      for (const DatatypeSpec& spec : b.datatypes) {
        if (!LibraryRunsLayout(c, spec)) continue;
        for (int64_t bytes : b.datatype_sizes) wanted.push_back({bytes, spec});
      }
    }
    std::set<std::pair<std::string, int64_t>> seen;
    for (const auto& [requested, datatype] : wanted) {
      auto w = datatype ? Workload::MakeDerived(c, requested, *datatype, b.env, b.root)
                        : Workload::Make(c, requested, b.reduce, b.env, problem, b.root);
      const std::string layout = LayoutOf(*w);
      if (!seen.insert({layout, w->bytes()}).second) continue;
      // Default, the mock-ups and the library's own algorithms: all of them
      // are candidates of the oracle; for the datatype grid, default and the
      // datatype forms (what a layout rule chooses between).
      std::vector<Algorithm> algorithms = layout.empty() ? ForPoint(Runnable(*w), false)
                                                         : ForLayoutRules(Runnable(*w));
      for (Algorithm a : algorithms) {
        if (IsNative(a)) natives.insert(IndexOf(a));
      }
      // Tuned: what the shim would run for this call.
      const Algorithm tuned = choice.For(*w);
      std::vector<Algorithm> series = algorithms;
      series.push_back(tuned);  // measured as a series of its own
      std::vector<int> nrep(series.size(), b.fixed_nrep ? b.fixed_nrep : 0);
      if (b.fixed_nrep == 0) {
        auto smallest = Workload::Make(c, 1, b.reduce, b.env);
        std::vector<double> budgets =
            EstimateBudgets(*smallest, {Algorithm::kDefault}, *b.sync,
                            o.nrep_options);
        std::vector<double> each(series.size(), budgets[0]);
        nrep = EstimateNrep(*w, series, each, *b.sync, o.nrep_options);
        // One count for all series, so every one gets the same chances.
        const int most = *std::max_element(nrep.begin(), nrep.end());
        nrep.assign(series.size(), most);
      }
      // Each evaluation launch has its own order (--launch, as campaign
      // launches do). With one order for every launch, the same series got
      // the same places in the rounds in all of them, and order has
      // after-effects (measure.h): in five evaluations of 3 launches each,
      // MPICH's reduce_scatter_block of 1 MiB (repetitions of 150 or 500 us)
      // timed default near 500 and pairwise near 250 us in all 15 launches,
      // while campaigns, an order per launch, saw both in both modes. With an
      // order per launch, evaluations see them mixed too (each slow in 4 of
      // 6 launches of two evaluations), and stop charging a table for one
      // order's luck.
      std::vector<int> rc;
      std::vector<std::vector<double>> samples =
          MeasureInterleaved(*w, series, nrep, o.warmup,
                             PointSeed(c, w->bytes(), 1000 + o.launch), *b.sync, &rc);
      if (b.rank != 0) {
        // The other regimes are collective: every rank times them.
        OtherRegimes(o, b, *w, algorithms, samples, choice, nrep[0],
                     PointSeed(c, w->bytes(), 1000 + o.launch));
        continue;
      }
      PointRecord record;
      record.collective = c;
      record.layout = layout;
      record.bytes = w->bytes();
      record.tuned = tuned;
      for (size_t a = 0; a < algorithms.size(); ++a) {
        record.candidates.push_back(SeriesOf(algorithms[a], samples[a]));
      }
      record.tuned_series = SeriesOf(tuned, samples.back());
      records.push_back(record);
      for (PointRecord& r : OtherRegimes(o, b, *w, algorithms, samples, choice, nrep[0],
                                         PointSeed(c, w->bytes(), 1000 + o.launch))) {
        records.push_back(std::move(r));
      }
      Point p;
      p.collective = c;
      p.layout = layout;
      p.bytes = w->bytes();
      p.tuned = tuned;
      const std::vector<double>& def = samples[0];
      const std::vector<double>& tuned_samples = samples.back();
      p.t_default = Median(def);
      p.t_tuned = Median(tuned_samples);
      p.t_oracle = p.t_default;
      size_t best = 0;
      for (size_t a = 0; a < algorithms.size(); ++a) {
        const double t = Median(samples[a]);
        if (t < p.t_oracle) {
          p.t_oracle = t;
          p.oracle = algorithms[a];
        }
        if (a > 0 && (best == 0 || t < Median(samples[best]))) best = a;
      }
      double pv;
      p.established = established.count({IndexOf(c), layout, p.bytes}) > 0;
      if (best > 0) {
        p.best = algorithms[best];
        p.t_best = Median(samples[best]);
        p.seen = SignificantlyFaster(samples[best], def, o.alpha, o.margin, &pv);
        p.repaired = p.tuned == p.best ||
                     !SignificantlyFaster(samples[best], tuned_samples, o.alpha,
                                          o.margin, &pv);
      }
      if (p.tuned != Algorithm::kDefault) {
        p.regression =
            SignificantlyFaster(def, tuned_samples, o.alpha, o.margin, &pv);
      } else {
        p.aa_differs =
            SignificantlyFaster(def, tuned_samples, o.alpha, o.margin, &pv) ||
            SignificantlyFaster(tuned_samples, def, o.alpha, o.margin, &pv);
      }
      points.push_back(p);
    }
  }
  if (b.rank != 0) return 0;

  printf("%-22s %9s %11s %-42s %10s %-42s %10s %8s %8s  %s\n", "collective",
         "bytes", "default_us", "best_alternative", "best_us", "tuned", "tuned_us",
         "vs_def", "vs_orcl", "flags");
  int seen = 0, seen_only = 0, established_n = 0, repaired = 0;
  int regressions = 0, changed = 0, aa = 0, aa_differs = 0;
  for (const Point& p : points) {
    const double vs_def = p.t_default / p.t_tuned;
    const double vs_orcl = p.t_oracle / p.t_tuned;
    std::string flags;
    auto flag = [&](const char* f) {
      if (!flags.empty()) flags += ",";
      flags += f;
    };
    if (p.established) {
      ++established_n;
      flag(p.repaired ? "established,repaired" : "established,NOT-REPAIRED");
      if (p.repaired) ++repaired;
    }
    if (p.seen) {
      ++seen;
      if (!p.established) {
        ++seen_only;
        flag("seen-in-this-run");
      }
    }
    if (p.tuned != Algorithm::kDefault) ++changed;
    if (p.regression) {
      ++regressions;
      flag("REGRESSION");
    }
    if (p.tuned == Algorithm::kDefault) {
      ++aa;
      if (p.aa_differs) {
        ++aa_differs;
        flag("a/a-differs");
      }
    }
    printf("%-22s %9lld %11.2f %-42s %10.2f %-42s %10.2f %8.3f %8.3f  %s\n",
           evaluation::PointName(p.collective, p.layout).c_str(),
           static_cast<long long>(p.bytes), p.t_default * 1e6,
           p.best == Algorithm::kDefault ? "-" : std::string(InfoOf(p.best).name).c_str(),
           p.t_best * 1e6, std::string(InfoOf(p.tuned).name).c_str(),
           p.t_tuned * 1e6, vs_def, vs_orcl, flags.c_str());
  }
  const std::string layout = std::to_string(b.context.nodes) +
                             (b.context.nodes == 1 ? " node (" : " nodes (") +
                             LayoutText(b.context) + ")";
  printf("\nevaluate: %zu points, %d processes on %s, %s sync, table sections %zu\n",
         points.size(), b.size, layout.c_str(), o.sync.c_str(), table.sections.size());
  printf("evaluate: violations established by the campaign %d, repaired in "
         "this run %d\n",
         established_n, repaired);
  printf("evaluate: violations seen in this run %d (%d of them not established "
         "over launches)\n",
         seen, seen_only);
  for (evaluation::Grid grid : {evaluation::Grid::kContiguous, evaluation::Grid::kDatatypes}) {
    if (grid == evaluation::Grid::kDatatypes && !evaluation::HasDatatypes({records})) break;
    PrintSummary(Summarize({records}, o.margin, o.alpha, Regime::kSync, grid), natives.size(),
                 1, Regime::kSync, grid);
    for (Regime r : {Regime::kLoop, Regime::kImbalance}) {
      if (!(RegimesIn({records}) & Bit(r))) continue;
      const Summary regime = Summarize({records}, o.margin, o.alpha, r, grid);
      PrintSummary(regime, natives.size(), 1, r, grid);
      PrintSlowerThanDefault(regime, 1, o.margin, o.alpha, r, grid);
    }
  }
  printf("evaluate: points where tuned is significantly slower than default: "
         "%d (of %d where the table changes the algorithm)\n",
         regressions, changed);
  printf("evaluate: A/A noise floor: default measured twice differs "
         "significantly at %d of %d points\n",
         aa_differs, aa);
  PrintRegimeTable({records}, o.margin, o.alpha);
  // For `colltune evaluate --launches N`, which combines launches.
  if (!o.evaluate_points.empty()) {
    FILE* f = fopen(o.evaluate_points.c_str(), "w");
    if (f == nullptr) {
      fprintf(stderr, "colltune-bench: cannot write %s\n", o.evaluate_points.c_str());
      return 1;
    }
    fprintf(f, "natives %zu\n", natives.size());
    fprintf(f, "layout %s\n", layout.c_str());
    for (const PointRecord& r : records) fprintf(f, "%s\n", FormatRecord(r).c_str());
    if (fclose(f) != 0) return 1;
  }
  return 0;
}

}  // namespace colltune::bench
