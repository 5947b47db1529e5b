// colltune-replay: recomputes a profile's decisions from the raw samples in
// a colltuned database, with other statistics, levels, margins, or fewer
// repetitions than were measured, and prints the table that would result
// next to the one in force. Read-only: nothing is written.
//
//   colltune-replay --db /var/lib/colltune/colltune.db --profile 3
//       --statistic mean --alpha 0.01 --max-reps 100 [--min-paired-launches 0]
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <tuple>

#include <CLI/CLI.hpp>

#include "common/command_line.h"
#include "common/limits.h"
#include "common/stats.h"
#include "common/table.h"
#include "daemon/engine.h"
#include "daemon/engine_flags.h"
#include "db/store.h"

namespace {

using namespace colltune;

double Statistic(const std::string& name, std::vector<double> v) {
  const Summary s = Summarize(v);
  if (name == "mean") return s.mean;
  if (name == "min") return s.min;
  return s.median;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"colltune-replay: recompute a profile's decisions from its raw "
               "samples (read-only)"};
  std::string db_path, statistic = "median", format = "text";
  int64_t profile = 0;
  int max_reps = 0;
  daemon::EngineOptions options;
  app.add_option("--db", db_path, "colltuned's SQLite database")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--profile", profile, "Profile id (colltune profiles)")
      ->required()
      ->check(CLI::PositiveNumber);
  app.add_option("--statistic", statistic,
                 "Per-launch statistic the rank test compares")
      ->check(CLI::IsMember({"median", "mean", "min"}))
      ->capture_default_str();
  app.add_option("--max-reps", max_reps,
                 "Use only each point's first N repetitions per launch (0: all)")
      ->check(CLI::Range(0, 1 << 30))
      ->capture_default_str();
  daemon::AddDecisionFlags(app, &options);
  app.add_option("--min-paired-launches", options.min_paired_launches,
                 "Launches the paired (within-launch) test needs; 0: off")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--format", format, "text (with the changes) or shim (table file)")
      ->check(CLI::IsMember({"text", "shim"}))
      ->capture_default_str();
  if (std::optional<int> code = ParseCommandLine(app, argc, argv)) return *code;

  auto store = db::Store::Open(db_path);
  if (!store.ok()) {
    std::cerr << "colltune-replay: " << store.status().message() << "\n";
    return 1;
  }
  db::Store& s = **store;
  auto found = s.GetProfile(profile);
  if (!found.ok() || !found->has_value()) {
    std::cerr << "colltune-replay: no profile " << profile << " in " << db_path << "\n";
    return 1;
  }
  auto points = s.campaigns().LaunchPoints(profile);
  auto pins = s.tables().Pins(profile);
  auto current = s.tables().CurrentTable(profile);
  if (!points.ok() || !pins.ok() || !current.ok()) {
    std::cerr << "colltune-replay: cannot read profile " << profile << "\n";
    return 1;
  }
  std::vector<daemon::LaunchMedian> medians;
  // The repetitions used, per point, for the within-launch tests below
  // (recomputed here: --max-reps changes them).
  std::vector<std::vector<double>> used_samples;
  int64_t used = 0, stored = 0;
  for (const db::LaunchPoint& p : *points) {
    auto samples = s.campaigns().Samples(p.campaign_id, p.launch, p.collective, p.algorithm,
                             p.msg_bytes, p.problem, p.regime);
    if (!samples.ok()) {
      std::cerr << "colltune-replay: " << samples.status().message() << "\n";
      return 1;
    }
    stored += static_cast<int64_t>(samples->size());
    if (max_reps > 0 && samples->size() > static_cast<size_t>(max_reps)) {
      samples->resize(max_reps);
    }
    used += static_cast<int64_t>(samples->size());
    // Launches are unique per (campaign, index), as in the daemon.
    medians.push_back({p.collective, p.algorithm, p.msg_bytes,
                       p.campaign_id * limits::kMaxLaunches + p.launch,
                       p.campaign_id,
                       Statistic(statistic, *samples), p.problem});
    medians.back().upper_quartile_seconds = UpperQuartile(*samples);
    medians.back().lower_quartile_seconds = LowerQuartile(*samples);
    medians.back().regime = p.regime;
    medians.back().launch_regimes = p.launch_regimes;
    used_samples.push_back(std::move(*samples));
  }
  // Each point's within-launch comparison with default (the engine's paired
  // test), as the daemon keeps it (db/store.h), on the repetitions used.
  std::map<std::tuple<int64_t, int, int64_t, std::string, int>, size_t> default_at;
  for (size_t i = 0; i < medians.size(); ++i) {
    const daemon::LaunchMedian& m = medians[i];
    if (m.algorithm == Algorithm::kDefault) {
      default_at[{m.launch, IndexOf(m.collective), m.msg_bytes, m.problem,
                  IndexOf(m.regime)}] = i;
    }
  }
  for (size_t i = 0; i < medians.size(); ++i) {
    daemon::LaunchMedian& m = medians[i];
    auto def = default_at.find(
        {m.launch, IndexOf(m.collective), m.msg_bytes, m.problem, IndexOf(m.regime)});
    if (m.algorithm == Algorithm::kDefault || def == default_at.end()) continue;
    m.p_faster_than_default = MannWhitneyLess(used_samples[i], used_samples[def->second]);
  }
  std::vector<daemon::PinnedRange> pinned;
  for (const db::PinRow& p : *pins) {
    pinned.push_back({p.collective, static_cast<uint64_t>(p.min_bytes),
                      p.max_bytes < 0 ? kNoUpperBound
                                      : static_cast<uint64_t>(p.max_bytes),
                      p.algorithm});
  }
  // From scratch: no incumbent, so the result shows what the evidence alone
  // decides.
  std::vector<daemon::Decision> decisions =
      daemon::ComputeDecisions(medians, {}, pinned, options);
  Table table;
  Section section;
  section.comm_size = static_cast<uint32_t>((*found)->key.comm_size);
  section.profile_id = profile;
  std::vector<Rule> rules;
  for (const daemon::Decision& d : decisions) rules.push_back(d.rule);
  section.rules = rules;
  table.sections.push_back(section);
  if (format == "shim") {
    std::cout << FormatTable(table);
    return 0;
  }
  int not_default = 0;
  for (const Rule& r : rules) not_default += r.algorithm != Algorithm::kDefault;
  printf("profile %lld: %zu points, %lld of %lld repetitions used, per-launch "
         "%s, alpha %g, margin %g, native margin %g\n",
         static_cast<long long>(profile), points->size(),
         static_cast<long long>(used), static_cast<long long>(stored),
         statistic.c_str(), options.alpha, options.margin, options.native_margin);
  std::cout << FormatTable(table);
  printf("%d ranges not default\n", not_default);
  const std::vector<Rule> in_force =
      current->has_value() ? (*current)->Rules() : std::vector<Rule>();
  const std::string changes = daemon::DescribeChanges(in_force, rules);
  printf("against the table in force (version %lld): %s\n",
         current->has_value() ? static_cast<long long>((*current)->version) : 0LL,
         changes.empty() ? "the same decisions" : changes.c_str());
  return 0;
}
