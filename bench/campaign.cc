// One launch of a tuning campaign: every algorithm of every collective at
// every size, measured interleaved, uploaded collective by collective so that
// an interrupted launch, run again with the same campaign label and launch
// index, measures only what the daemon has not stored yet.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "bench/datatype_grid.h"
#include "bench/measure.h"
#include "bench/options.h"
#include "bench/regimes.h"
#include "bench/table_choice.h"
#include "bench/upload.h"
#include "client/client.h"
#include "common/layout_class.h"
#include "common/problems.h"
#include "common/regime.h"
#include "common/stats.h"
#include "proto/context.h"

namespace colltune::bench {
namespace {

// collective, algorithm, bytes, problem ("" but for irregular collectives)
using PointKey = std::tuple<int, int, int64_t, std::string>;

std::string Hostname() {
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  return name;
}

v1::Context ContextProto(const Options& o, const Bench& b) {
  JobContext c = b.context;
  c.cluster = o.cluster;
  return ContextToProto(c);
}

// A point's problem as one integer, to broadcast: 0 none, 1.. a block-size
// distribution, kLayoutCodes.. a datatype layout; nullopt for neither.
constexpr int64_t kLayoutCodes = 100;

std::optional<int64_t> ProblemCode(const std::string& problem) {
  if (problem.empty()) return 0;
  if (std::optional<Problem> p = ParseProblem(problem)) return static_cast<int64_t>(*p) + 1;
  if (std::optional<LayoutKey> k = ParseLayoutProblem(problem)) {
    return kLayoutCodes + static_cast<int64_t>(k->layout) * 64 + k->block_log2 + 1;
  }
  return std::nullopt;
}

std::string ProblemOfCode(int64_t code) {
  if (code == 0) return "";
  if (code < kLayoutCodes) return std::string(NameOf(static_cast<Problem>(code - 1)));
  return LayoutProblem({static_cast<LayoutClass>((code - kLayoutCodes) / 64),
                        static_cast<int8_t>((code - kLayoutCodes) % 64 - 1)});
}

// What this launch already stored (rank 0 asks the daemon), made known to
// every rank, which must skip the same points.
std::set<PointKey> StoredPoints(const Options& o, const Bench& b,
                                const std::string& campaign) {
  std::vector<int64_t> flat;  // (collective, algorithm, bytes, problem index + 1)
  if (b.rank == 0 && !o.server.empty() && o.resume) {
    auto stub = client::Connect(o.server);
    v1::GetCampaignRequest request;
    *request.mutable_context() = ContextProto(o, b);
    request.set_campaign(campaign);
    v1::GetCampaignResponse response;
    auto rpc = client::WithDeadline(std::chrono::milliseconds(o.timeout_ms));
    grpc::Status s = stub->GetCampaign(rpc.get(), request, &response);
    if (!s.ok()) {
      fprintf(stderr, "colltune-bench: cannot ask what is stored (%s); "
                      "measuring everything\n",
              s.error_message().c_str());
    }
    for (const v1::StoredPoint& p : response.points()) {
      auto c = ParseCollective(p.collective());
      auto a = c ? ParseAlgorithm(p.algorithm(), *c) : std::nullopt;
      const std::optional<int64_t> problem = ProblemCode(p.problem());
      // A point counts as stored by its synchronized series (the other
      // regimes were uploaded with it, collective by collective).
      const std::optional<Regime> regime = ParseRegime(p.regime());
      if (p.launch() != o.launch || !c || !a || !problem || regime != Regime::kSync) {
        continue;
      }
      flat.insert(flat.end(), {IndexOf(*c), IndexOf(*a), p.msg_bytes(), *problem});
    }
  }
  int64_t n = static_cast<int64_t>(flat.size());
  PMPI_Bcast(&n, 1, MPI_INT64_T, 0, b.comm);
  flat.resize(n);
  PMPI_Bcast(flat.data(), static_cast<int>(n), MPI_INT64_T, 0, b.comm);
  std::set<PointKey> stored;
  for (int64_t i = 0; i + 3 < n; i += 4) {
    stored.insert({static_cast<int>(flat[i]), static_cast<int>(flat[i + 1]),
                   flat[i + 2], ProblemOfCode(flat[i + 3])});
  }
  return stored;
}

struct Row {
  Collective collective;
  int64_t bytes;
  std::string problem;
  Algorithm algorithm;
  Regime regime;
  Summary summary;
};

v1::Measurement MeasurementOf(Collective c, int64_t bytes, const std::string& problem,
                              Algorithm a, Regime r, const std::vector<double>& samples) {
  v1::Measurement m;
  m.set_collective(std::string(InfoOf(c).name));
  m.set_algorithm(std::string(InfoOf(a).name));
  m.set_msg_bytes(bytes);
  m.set_problem(problem);
  m.set_regime(std::string(NameOf(r)));
  for (double v : samples) m.add_samples(v);
  return m;
}

// One regime's series of a point.
struct RegimeSeries {
  Regime regime;
  int calls;  // per repetition
  std::vector<Algorithm> algorithms;  // default first
  std::vector<std::vector<double>> samples;
  std::vector<int> rc;
};

// Times default and the candidates that may still win (regimes.h,
// RegimeCandidates) in every regime besides sync the options ask for. Every
// rank holds the same synchronized latencies, so every rank picks the same
// candidates. Nothing when default failed or was not measured here (a
// resumed launch that stored it already).
std::vector<RegimeSeries> MeasureOtherRegimes(const Options& o, Bench& b, Workload& w,
                                              const std::vector<Algorithm>& algorithms,
                                              const std::vector<std::vector<double>>& sync,
                                              const std::vector<int>& rc, uint64_t seed) {
  std::vector<RegimeSeries> out;
  if ((o.regime.regimes & ~kSyncOnly) == 0 || algorithms.empty() ||
      algorithms[0] != Algorithm::kDefault || sync[0].empty()) {
    return out;
  }
  int failed = rc[0] != MPI_SUCCESS ? 1 : 0, any_failed = 0;
  PMPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, b.comm);
  if (any_failed) return out;
  std::vector<double> medians(algorithms.size(), 0);
  for (size_t a = 0; a < algorithms.size(); ++a) medians[a] = Median(sync[a]);
  std::vector<Algorithm> chosen;
  if (o.validate) {
    // A validation times what the table runs, each choice in every regime:
    // a regime switch may be far slower from a barrier, where it never runs.
    chosen = algorithms;
  } else {
    for (size_t i : RegimeCandidates(o.regime, medians, FamiliesOf(algorithms))) {
      chosen.push_back(algorithms[i]);
    }
  }
  // The candidates the prune left out that may still be a regime's
  // specialist (a switch: daemon/engine.h): screened per regime below.
  const std::vector<Algorithm> others =
      o.validate ? std::vector<Algorithm>()
                 : SpecialistCandidates(o.regime, algorithms, medians, chosen);
  const RegimePlan plan = PlanFromProbe(o.regime, w, static_cast<int>(sync[0].size()),
                                        medians[0], b.comm);
  // Each rank's work before a call under imbalance: up to the call's own
  // time, default's back to back where it was timed so (what the call costs
  // a program), else synchronized.
  double work = medians[0];
  for (Regime r : {Regime::kLoop, Regime::kImbalance}) {
    if (!(o.regime.regimes & Bit(r))) continue;
    // Default alone is timed only so that the point counts as measured in
    // every regime (the engine leaves out points that are not): a few
    // repetitions do.
    std::vector<Algorithm> timed = chosen;
    AddSpecialists(o.regime, w, others, r, plan, work, seed, b.comm, &timed);
    const int reps = timed.size() > 1 ? plan.RepsIn(r) : o.regime.min_reps;
    RegimeSeries series{r, plan.calls, timed, {}, {}};
    series.samples = MeasureRegime(w, timed, r, reps, plan.calls, work,
                                   seed ^ (0x7e91ull << IndexOf(r)), !out.empty(), b.comm,
                                   &series.rc);
    out.push_back(series);
    if (r != Regime::kLoop) continue;
    const double loop_default = Median(series.samples[0]);
    if (loop_default > 0) work = loop_default;
    // A candidate that lost the loop cannot win (slower in one regime), so
    // it is not timed in the next; the medians are the same on every rank.
    // A validation times every choice everywhere.
    if (!o.validate) {
      std::vector<std::vector<double>> first(series.samples.begin(),
                                             series.samples.begin() + chosen.size());
      chosen = RegimeSurvivors(o.regime, chosen, first);
    }
  }
  return out;
}

// A point of the campaign: a size, and for irregular collectives a
// block-size distribution (whose average block, or total, that size is:
// workload.h), or the derived datatype the data is described by.
struct Point {
  int64_t requested;
  std::optional<Problem> problem;
  std::optional<DatatypeSpec> datatype;

  std::unique_ptr<Workload> Make(Collective c, const Bench& b) const {
    return datatype ? Workload::MakeDerived(c, requested, *datatype, b.env, b.root)
                    : Workload::Make(c, requested, b.reduce, b.env, problem, b.root);
  }
  // Distinct per point of a collective's size, the same on every rank.
  uint64_t Salt() const {
    if (problem) return static_cast<uint64_t>(*problem) + 1;
    if (datatype) return (static_cast<uint64_t>(datatype->layout) << 32) ^ datatype->block;
    return 0;
  }
};

std::vector<Point> PointsOf(Collective c, const Bench& b) {
  std::vector<Point> points;
  const CollectiveInfo& info = InfoOf(c);
  if (!info.irregular) {
    if (info.key == SizeKey::kNone) return {{0, std::nullopt, std::nullopt}};  // barrier
    for (int64_t bytes : b.sizes) points.push_back({bytes, std::nullopt, std::nullopt});
    // Seed 003's grid where the collective has datatype forms.
    if (!HasDatatypeForms(c) || b.launched_with()) return points;
    for (const DatatypeSpec& spec : b.datatypes) {
      if (!LibraryRunsLayout(c, spec)) continue;
      for (int64_t bytes : b.datatype_sizes) points.push_back({bytes, std::nullopt, spec});
    }
    return points;
  }
  const std::vector<int64_t>& sizes =
      info.key == SizeKey::kTotalBytes ? b.total_sizes : b.irregular_sizes;
  for (int64_t bytes : sizes) {
    for (Problem problem : kAllProblems) points.push_back({bytes, problem, std::nullopt});
  }
  // The grid for the v-variants' datatype forms: equal blocks, each of
  // --datatype-sizes (allgatherv: all of them together).
  if (!HasDatatypeForms(c) || b.launched_with()) return points;
  for (const DatatypeSpec& spec : b.datatypes) {
    for (int64_t bytes : b.datatype_sizes) points.push_back({bytes, std::nullopt, spec});
  }
  return points;
}

void PrintRows(const std::vector<Row>& rows, bool csv) {
  std::map<std::tuple<int, int64_t, std::string, int>, double> defaults;
  for (const Row& r : rows) {
    if (r.algorithm == Algorithm::kDefault) {
      defaults[{IndexOf(r.collective), r.bytes, r.problem, IndexOf(r.regime)}] =
          r.summary.median;
    }
  }
  if (csv) {
    printf("collective,bytes,algorithm,nrep,median_s,min_s,mean_s,"
           "speedup_vs_default,regime\n");
  } else {
    printf("%-22s %9s %-44s %5s %12s %12s %8s %s\n", "collective", "bytes",
           "algorithm", "nrep", "median_us", "min_us", "speedup", "regime");
  }
  for (const Row& r : rows) {
    auto d = defaults.find({IndexOf(r.collective), r.bytes, r.problem, IndexOf(r.regime)});
    const double speedup = d != defaults.end() && r.summary.median > 0
                               ? d->second / r.summary.median
                               : 0;
    const std::string coll = std::string(InfoOf(r.collective).name) +
                             (r.problem.empty() ? "" : "/" + r.problem);
    const std::string alg(InfoOf(r.algorithm).name);
    const std::string regime(NameOf(r.regime));
    if (csv) {
      printf("%s,%lld,%s,%lld,%.9g,%.9g,%.9g,%.4f,%s\n", coll.c_str(),
             static_cast<long long>(r.bytes), alg.c_str(),
             static_cast<long long>(r.summary.n), r.summary.median,
             r.summary.min, r.summary.mean, speedup, regime.c_str());
    } else {
      printf("%-22s %9lld %-44s %5lld %12.2f %12.2f %7.2fx %s\n", coll.c_str(),
             static_cast<long long>(r.bytes), alg.c_str(),
             static_cast<long long>(r.summary.n), r.summary.median * 1e6,
             r.summary.min * 1e6, speedup, regime.c_str());
    }
  }
}

// A point a validation timed: the table's choice there and, per regime,
// its median over default's in this launch (0: not timed in the regime).
struct HeldOutPoint {
  Collective collective;
  int64_t bytes;
  std::string problem;
  std::array<Algorithm, kNumRegimes> runs;  // what the table runs, per regime
  std::array<double, kNumRegimes> ratio;     // its time over default's; 0: default
};

void PrintHeldOut(const std::vector<HeldOutPoint>& points) {
  fprintf(stderr, "colltune-bench: held-out validation: %zu points where the table changes "
                  "the algorithm; its time over default's in this launch:\n",
          points.size());
  for (const HeldOutPoint& h : points) {
    // "scatter_as_bcast: sync 1.02 loop 0.95", a switch named in its regime.
    std::string regimes;
    for (Regime r : kAllRegimes) {
      const double x = h.ratio[IndexOf(r)];
      if (x <= 0) continue;
      char text[48];
      snprintf(text, sizeof text, " %s %.3f", std::string(NameOf(r)).c_str(), x);
      regimes += text;
      const Algorithm runs = h.runs[IndexOf(r)];
      if (r != Regime::kSync && runs != h.runs[IndexOf(Regime::kSync)]) {
        regimes += " (" + std::string(InfoOf(runs).name) + ")";
      }
    }
    fprintf(stderr, "colltune-bench:   %s %lld B%s%s %s:%s\n",
            std::string(InfoOf(h.collective).name).c_str(),
            static_cast<long long>(h.bytes), h.problem.empty() ? "" : " ",
            h.problem.c_str(), std::string(InfoOf(h.runs[IndexOf(Regime::kSync)]).name).c_str(),
            regimes.c_str());
  }
}

// What the daemon changed after this launch: with held-out launches enough,
// the choices they took back (the table's history says which).
void PrintTakenBack(const Options& o, int64_t profile_id, int64_t since) {
  auto stub = client::Connect(o.server);
  v1::GetTableHistoryRequest request;
  request.set_profile_id(profile_id);
  v1::GetTableHistoryResponse response;
  auto rpc = client::WithDeadline(std::chrono::milliseconds(o.timeout_ms));
  if (!stub->GetTableHistory(rpc.get(), request, &response).ok()) return;
  for (const v1::TableVersionSummary& v : response.versions()) {
    if (v.version() <= since) continue;
    fprintf(stderr, "colltune-bench: held-out validation: table version %lld: %s\n",
            static_cast<long long>(v.version()), v.changes().c_str());
  }
}

}  // namespace

int RunCampaign(const Options& o, Bench& b) {
  const std::string campaign =
      !o.campaign.empty()
          ? o.campaign
          : "bench-" + Hostname() + "-" +
                std::to_string(static_cast<long long>(time(nullptr)));
  // A validation times the table's choices against default, nothing else.
  std::optional<TableChoice> table_choice;
  if (o.validate) {
    Table table;
    if (!LoadTable(o, b, &table)) return 1;
    table_choice.emplace(table, b.size);
  }
  std::vector<HeldOutPoint> held_out;  // rank 0: what the validation timed
  const std::set<PointKey> stored = StoredPoints(o, b, campaign);
  v1::UploadMeasurementsRequest base;
  *base.mutable_context() = ContextProto(o, b);
  base.set_campaign(campaign);
  base.set_launch(o.launch);
  base.set_host(Hostname());
  base.set_held_out(o.validate);
  for (Regime r : kAllRegimes) {
    if (o.regime.regimes & Bit(r)) base.add_regimes(std::string(NameOf(r)));
  }

  // Fault injection for tests: abort the job (as a crash or a time limit
  // would) after this many collectives were uploaded.
  int abort_after = 0;
  if (const char* v = getenv("COLLTUNE_BENCH_ABORT_AFTER")) abort_after = atoi(v);
  int collectives_uploaded = 0;
  std::vector<Row> rows;
  int exit_code = 0;
  bool upload_failed = false;
  long long repetitions = 0, skipped = 0, uploaded = 0, regime_calls = 0;
  long long uploaded_series = 0;  // of the other regimes
  double regime_seconds = 0;
  int stopped_early = 0;
  EarlyStop early;
  early.factor = o.early_stop;
  early.default_factor = o.early_stop > 0 ? o.early_stop_default : 0;
  int64_t table_version = 0;
  const double start = PMPI_Wtime();
  size_t points = 0;
  for (Collective c : b.collectives) points += PointsOf(c, b).size();
  size_t done_points = 0;
  for (Collective c : b.collectives) {
    std::vector<v1::Measurement> pending;
    std::vector<double> budgets;  // NREP step 1, per algorithm, on first need
    std::vector<Algorithm> budget_algorithms;
    // Requested sizes that round to the same bytes are measured once.
    std::set<std::pair<int64_t, std::string>> seen;
    for (const Point& point : PointsOf(c, b)) {
      ++done_points;
      // A validation checks irregular collectives at random block sizes,
      // the distribution colltune evaluate judges them at.
      if (o.validate && point.problem && *point.problem != Problem::kRandom) continue;
      auto w = point.Make(c, b);
      const std::string problem =
          point.problem ? std::string(NameOf(*point.problem)) : w->layout_problem();
      if (!seen.insert({w->bytes(), problem}).second) continue;
      std::vector<Algorithm> algorithms;
      std::vector<Algorithm> runnable = Runnable(*w);
      // Launched with a whole-job choice: the library's default is that
      // choice, and all there is to time.
      if (b.launched_with()) runnable = {Algorithm::kDefault};
      // A layout's point times the datatype forms (what its rules choose
      // between) and every plain candidate (a plain rule must not slow the
      // layout down); elsewhere the forms would run as default does.
      runnable = ForPoint(runnable, point.datatype.has_value());
      if (table_choice) {
        // What the table runs in each regime (a switch in its own).
        runnable = {Algorithm::kDefault};
        for (Regime r : kAllRegimes) {
          const Algorithm tuned = table_choice->For(*w, r);
          if (std::find(runnable.begin(), runnable.end(), tuned) == runnable.end()) {
            runnable.push_back(tuned);
          }
        }
        if (runnable.size() == 1) continue;  // nothing to check here
      }
      for (Algorithm a : runnable) {
        if (stored.count({IndexOf(c), IndexOf(b.StoredAs(c, a)), w->bytes(), problem})) {
          ++skipped;
        } else {
          algorithms.push_back(a);
        }
      }
      if (algorithms.empty()) continue;
      std::vector<int> nrep(algorithms.size(), b.fixed_nrep);
      if (b.fixed_nrep == 0) {
        if (budgets.empty()) {
          auto smallest = Workload::Make(c, 1, b.reduce, b.env);
          budget_algorithms = b.launched_with() ? std::vector<Algorithm>{Algorithm::kDefault}
                                                : Runnable(*smallest);
          budgets = EstimateBudgets(*smallest, budget_algorithms, *b.sync,
                                    o.nrep_options);
        }
        std::vector<double> mine;
        for (Algorithm a : algorithms) {
          auto at = std::find(budget_algorithms.begin(), budget_algorithms.end(), a);
          // An algorithm not eligible at 1 byte borrows the largest budget.
          mine.push_back(at != budget_algorithms.end()
                             ? budgets[at - budget_algorithms.begin()]
                             : *std::max_element(budgets.begin(), budgets.end()));
        }
        nrep = EstimateNrep(*w, algorithms, mine, *b.sync, o.nrep_options);
      }
      std::vector<int> rc;
      std::vector<std::vector<double>> samples =
          MeasureInterleaved(*w, algorithms, nrep, o.warmup,
                             PointSeed(c, w->bytes(), o.launch) ^ point.Salt(), *b.sync,
                             &rc, early, &stopped_early);
      for (const std::vector<double>& s : samples) {
        repetitions += static_cast<long long>(s.size());
      }
      // The other regimes: default and the candidates still in the race.
      const double regimes_start = PMPI_Wtime();
      std::vector<RegimeSeries> regimes =
          MeasureOtherRegimes(o, b, *w, algorithms, samples, rc,
                              PointSeed(c, w->bytes(), o.launch) ^ point.Salt());
      regime_seconds += PMPI_Wtime() - regimes_start;
      for (const RegimeSeries& r : regimes) {
        for (const std::vector<double>& s : r.samples) {
          regime_calls += static_cast<long long>(s.size()) * r.calls;
        }
      }
      if (b.rank != 0) continue;
      if (o.validate && algorithms.size() >= 2 && rc[0] == MPI_SUCCESS) {
        // Per regime, what the table runs there over default.
        HeldOutPoint h{c, w->bytes(), problem, {}, {}};
        const auto ratio = [&](Regime r, const std::vector<Algorithm>& timed,
                               const std::vector<std::vector<double>>& s,
                               const std::vector<int>& codes) {
          const Algorithm runs = table_choice->For(*w, r);
          h.runs[IndexOf(r)] = runs;
          const size_t i = std::find(timed.begin(), timed.end(), runs) - timed.begin();
          if (i < timed.size() && i > 0 && codes[i] == MPI_SUCCESS && Median(s[0]) > 0) {
            h.ratio[IndexOf(r)] = Median(s[i]) / Median(s[0]);
          }
        };
        ratio(Regime::kSync, algorithms, samples, rc);
        for (const RegimeSeries& r : regimes) ratio(r.regime, r.algorithms, r.samples, r.rc);
        held_out.push_back(h);
      }
      const std::string coll(InfoOf(c).name);
      for (size_t a = 0; a < algorithms.size(); ++a) {
        const std::string name(InfoOf(b.StoredAs(c, algorithms[a])).name);
        if (rc[a] != MPI_SUCCESS) {
          fprintf(stderr, "colltune-bench: %s %lld B %s %s failed with MPI error %d\n",
                  coll.c_str(), static_cast<long long>(w->bytes()), problem.c_str(),
                  name.c_str(), rc[a]);
          exit_code = 1;
          continue;
        }
        rows.push_back({c, w->bytes(), problem, b.StoredAs(c, algorithms[a]), Regime::kSync,
                        Summarize(samples[a])});
        pending.push_back(MeasurementOf(c, w->bytes(), problem, b.StoredAs(c, algorithms[a]),
                                        Regime::kSync, samples[a]));
        if (!o.quiet) {
          const double elapsed = PMPI_Wtime() - start;
          const double eta = elapsed / done_points * (points - done_points);
          fprintf(stderr,
                  "colltune-bench: [%zu/%zu] %s %lld B%s%s %s: median %.2f us "
                  "(%d reps), ETA %.0f s\n",
                  done_points, points, coll.c_str(),
                  static_cast<long long>(w->bytes()), problem.empty() ? "" : " ",
                  problem.c_str(), name.c_str(),
                  rows.back().summary.median * 1e6,
                  static_cast<int>(samples[a].size()), eta);
        }
      }
      for (const RegimeSeries& r : regimes) {
        for (size_t i = 0; i < r.algorithms.size(); ++i) {
          if (r.rc[i] != MPI_SUCCESS || r.samples[i].empty()) {
            if (r.rc[i] != MPI_SUCCESS) {
              fprintf(stderr, "colltune-bench: %s %lld B %s %s (%s) failed with MPI "
                      "error %d\n", coll.c_str(), static_cast<long long>(w->bytes()),
                      problem.c_str(), std::string(InfoOf(r.algorithms[i]).name).c_str(),
                      std::string(NameOf(r.regime)).c_str(), r.rc[i]);
              exit_code = 1;
            }
            continue;
          }
          rows.push_back({c, w->bytes(), problem, b.StoredAs(c, r.algorithms[i]), r.regime,
                          Summarize(r.samples[i])});
          pending.push_back(MeasurementOf(c, w->bytes(), problem,
                                          b.StoredAs(c, r.algorithms[i]), r.regime,
                                          r.samples[i]));
        }
      }
    }
    // Stored per collective: an interruption loses at most one collective.
    if (b.rank == 0 && !o.server.empty() && !pending.empty() && !upload_failed) {
      v1::UploadMeasurementsRequest partial = base;
      partial.set_partial(true);
      absl::Status s =
          Upload({o.server, o.timeout_ms}, partial, pending, &table_version);
      if (!s.ok()) {
        fprintf(stderr, "colltune-bench: upload failed: %s\n",
                std::string(s.message()).c_str());
        upload_failed = true;
        exit_code = 1;
      } else {
        for (const v1::Measurement& m : pending) {
          if (ParseRegime(m.regime()) == Regime::kSync) {
            ++uploaded;
          } else {
            ++uploaded_series;
          }
        }
        if (abort_after > 0 && ++collectives_uploaded >= abort_after) {
          fprintf(stderr, "colltune-bench: aborting after %d collectives "
                          "(COLLTUNE_BENCH_ABORT_AFTER)\n", collectives_uploaded);
          PMPI_Abort(b.comm, 3);
        }
      }
    }
  }
  // The launch is complete: the daemon decides.
  const int64_t version_before = table_version;
  int64_t profile_id = 0;
  // A validation of a table that runs default at every point it covers
  // has nothing to time, and no launch to close.
  const bool nothing_to_validate = o.validate && uploaded == 0 && skipped == 0;
  if (b.rank == 0 && !o.server.empty() && !upload_failed && !nothing_to_validate) {
    absl::Status s =
        Upload({o.server, o.timeout_ms}, base, {}, &table_version, &profile_id);
    if (!s.ok()) {
      fprintf(stderr, "colltune-bench: closing the launch failed: %s\n",
              std::string(s.message()).c_str());
      upload_failed = true;
      exit_code = 1;
    }
  }
  if (b.rank == 0) {
    PrintRows(rows, o.csv);
    size_t sync_rows = 0;
    for (const Row& r : rows) sync_rows += r.regime == Regime::kSync ? 1 : 0;
    fprintf(stderr,
            "colltune-bench: %zu points measured with %lld repetitions (%s) in "
            "%.1f s (rooted collectives at root %d); %lld already stored were skipped",
            sync_rows, repetitions,
            b.fixed_nrep ? "fixed" : "NREP estimation",
            PMPI_Wtime() - start, b.root, skipped);
    if (rows.size() > sync_rows) {
      fprintf(stderr, "; %zu series in other regimes (%lld calls, %.1f s)",
              rows.size() - sync_rows, regime_calls, regime_seconds);
    }
    if (stopped_early > 0) {
      fprintf(stderr,
              "; %d (point, algorithm) pairs stopped early as unable to win "
              "(--early-stop %.2f)",
              stopped_early, o.early_stop);
    }
    if (b.sync->invalid() > 0) {
      fprintf(stderr, "; %lld late repetitions repeated", b.sync->invalid());
    }
    fprintf(stderr, "; heap %s\n", b.heap.c_str());
    if (!o.server.empty() && !upload_failed) {
      fprintf(stderr,
              "colltune-bench: uploaded %lld points and %lld series in other regimes "
              "to %s (%s '%s' launch %d); table version now %lld\n",
              uploaded, uploaded_series, o.server.c_str(),
              o.validate ? "held-out validation" : "campaign", campaign.c_str(), o.launch,
              static_cast<long long>(table_version));
    }
    if (nothing_to_validate) {
      fprintf(stderr, "colltune-bench: held-out validation: the table runs default at every "
                      "point of this grid; nothing to time\n");
    } else if (o.validate) {
      PrintHeldOut(held_out);
      if (!o.server.empty() && !upload_failed && version_before > 0 &&
          table_version != version_before) {
        PrintTakenBack(o, profile_id, version_before);
      }
    }
  }
  return exit_code;
}

}  // namespace colltune::bench
