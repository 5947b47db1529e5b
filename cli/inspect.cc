// colltune algorithms | table | profiles | profile: what the daemon knows.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_join.h"

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/rpc.h"
#include "cli/whole_job.h"
#include "client/client.h"
#include "common/catalog.h"
#include "common/layout.h"
#include "common/quirks.h"
#include "common/regime.h"
#include "common/table.h"
#include "proto/context.h"

namespace colltune::cli {
namespace {

using nlohmann::json;

json SectionJson(const v1::TableSection& s) {
  json rules = json::array();
  for (const v1::Rule& r : s.rules()) rules.push_back(RuleJson(r));
  return {{"comm_size", s.comm_size()},
          {"profile_id", s.profile_id()},
          {"version", s.version()},
          {"created_at", s.created_at()},
          {"reason", s.reason()},
          {"rules", rules}};
}

}  // namespace

namespace {

std::vector<std::string> LibrariesOf(const AlgorithmInfo& info) {
  std::vector<std::string> out;
  if (info.libraries & kOpenMpi) out.push_back("Open MPI");
  if (info.libraries & kMpich) out.push_back("MPICH");
  return out;
}

}  // namespace

int Algorithms(bool as_json, const std::string& library) {
  // Native algorithms are listed as colltune knows them; which ones a
  // running library really offers, colltune-bench --list-algorithms asks it.
  const uint8_t family = NativeLibraryOf(library);
  if (!library.empty() && family == 0) {
    fprintf(stderr,
            "colltune: no native algorithms are known for library '%s' (known: "
            "'Open MPI', 'MPICH')\n",
            library.c_str());
    return 2;
  }
  json out = json::array();
  if (!as_json) {
    printf("%-22s %-44s %-6s %s\n", "collective", "algorithm", "guide",
           "what it does");
  }
  for (int c = 0; c < kNumCollectives; ++c) {
    const Collective coll = static_cast<Collective>(c);
    for (int a = 0; a < kNumAlgorithms; ++a) {
      const Algorithm alg = static_cast<Algorithm>(a);
      if (!Implements(alg, coll)) continue;
      const AlgorithmInfo& info = InfoOf(alg);
      if (info.native() && family != 0 && !(info.libraries & family)) continue;
      const std::vector<std::string> libraries = LibrariesOf(info);
      const std::string segment =
          info.segment == 0 ? "" : " with " + std::to_string(info.segment / 1024) + " KiB segments";
      const std::string summary =
          info.at_launch
              ? "the library's own, enabled for a whole job at launch, never per call (" +
                    absl::StrJoin(libraries, ", ") + "; campaign --whole-job)"
          : info.native()
              ? "the library's own, forced" + segment + " (" + absl::StrJoin(libraries, ", ") + ")"
              : std::string(info.summary);
      if (as_json) {
        json row = {{"collective", InfoOf(coll).name},
                    {"algorithm", info.name},
                    {"guideline", info.guideline},
                    {"native", info.native()},
                    {"whole_job", info.at_launch},
                    {"summary", summary}};
        if (info.native()) row["libraries"] = libraries;
        out.push_back(row);
      } else {
        printf("%-22s %-44s %-6s %s\n", std::string(InfoOf(coll).name).c_str(),
               std::string(info.name).c_str(),
               info.at_launch  ? "job"
               : info.native() ? "native"
               : info.guideline.empty() ? "-"
                                        : std::string(info.guideline).c_str(),
               summary.c_str());
      }
    }
  }
  if (as_json) std::cout << out.dump(2) << "\n";
  return 0;
}

int Quirks(bool as_json, const std::string& library) {
  const uint8_t family = NativeLibraryOf(library);
  if (!library.empty() && family == 0) {
    fprintf(stderr, "colltune: no quirks are known for library '%s' (known: 'Open MPI', 'MPICH')\n",
            library.c_str());
    return 2;
  }
  json out = json::array();
  for (const Quirk* q = QuirksBegin(); q != QuirksEnd(); ++q) {
    if (family != 0 && !(q->library & family)) continue;
    const std::string lib = q->library == kOpenMpi ? "Open MPI" : "MPICH";
    const std::string versions =
        q->fixed_in.empty() ? std::string("every version")
                            : "before " + std::string(q->fixed_in);
    if (as_json) {
      out.push_back({{"library", lib},
                     {"seen_in", q->seen_in},
                     {"fixed_in", q->fixed_in},
                     {"collective", InfoOf(q->collective).name},
                     {"algorithm", "native:" + std::string(q->algorithm)},
                     {"forms", QuirkFormNames(q->forms)},
                     {"evidence", q->evidence}});
    } else {
      printf("%s %s native:%s (seen in %s, %s), wrong for [%s]: %s\n", lib.c_str(),
             std::string(InfoOf(q->collective).name).c_str(),
             std::string(q->algorithm).c_str(), std::string(q->seen_in).c_str(),
             versions.c_str(), QuirkFormNames(q->forms).c_str(),
             std::string(q->evidence).c_str());
    }
  }
  if (as_json) std::cout << out.dump(2) << "\n";
  return 0;
}

int ShowTable(const Connection& c, const TableArgs& args) {
  v1::GetTableRequest request;
  *request.mutable_context() = ContextToProto(args.context);
  v1::GetTableResponse response;
  absl::Status status = Ask(c, &v1::Tuning::Stub::GetTable, request, &response);
  if (!status.ok()) return Fail(status);

  // The shim's parser judges the table first: what it would refuse, the CLI
  // refuses too.
  std::vector<std::string> warnings;
  absl::StatusOr<Table> table = client::TableFromProto(response.table(), &warnings);
  for (const std::string& w : warnings) std::cerr << "colltune: " << w << "\n";
  if (!table.ok()) return Fail(table.status());

  if (args.format == Format::kShim) {
    // The shim's agent: MPI_Init waits for this process to exit, and
    // gRPC's orderly shutdown (joining its threads) would add milliseconds
    // to every job's start for nothing, so the answer ends the process.
    std::cout << FormatTable(*table) << std::flush;
    std::_Exit(std::cout.good() ? 0 : 1);
  }
  const Section* chosen = SelectSection(*table, args.context.comm_size);
  const v1::TableSection* section = nullptr;
  for (const v1::TableSection& s : response.table().sections()) {
    if (chosen != nullptr && s.comm_size() == static_cast<int>(chosen->comm_size)) {
      section = &s;
    }
  }
  if (args.format == Format::kJson) {
    json sections = json::array();
    for (const v1::TableSection& s : response.table().sections()) {
      sections.push_back(SectionJson(s));
    }
    json out = {{"context", ContextJson(response.table().context())},
                {"section", section ? SectionJson(*section) : json(nullptr)},
                {"sections", sections}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  const v1::Context& served = response.table().context();
  printf("decision table for %d processes on cluster '%s'", args.context.comm_size,
         served.cluster().c_str());
  if (!served.library().empty()) {
    printf(", %s %s", served.library().c_str(),
           served.library_version().c_str());
  }
  printf("\n");
  if (section == nullptr) {
    printf("no profile within a factor of 2 of %d processes: every collective "
           "runs the library's default\n",
           args.context.comm_size);
    return 0;
  }
  if (section->profile_id() == 0) {
    // Withheld by the daemon: measured only on other node counts.
    printf("no rules for this layout: %s\n", section->reason().c_str());
    return 0;
  }
  printf("from the profile of %d processes (profile %lld, table version %lld, "
         "%s: %s)\n",
         section->comm_size(), static_cast<long long>(section->profile_id()),
         static_cast<long long>(section->version()),
         section->created_at().c_str(), section->reason().c_str());
  PrintRules(*section);
  printf("speedup: default time / algorithm time (geometric mean over the regimes); "
         "p: one-sided rank test on per-launch medians; launches: default/algorithm; "
         "regimes: sync (a barrier before each call), loop (back to back), imbalance "
         "(after uneven work), each with its speedup, + where the algorithm won it\n");
  return 0;
}

int ListProfiles(const Connection& c, const std::string& cluster,
                 const std::string& library, bool as_json) {
  v1::ListProfilesRequest request;
  request.set_cluster(cluster);
  request.set_library(library);
  v1::ListProfilesResponse response;
  absl::Status status = Ask(c, &v1::Tuning::Stub::ListProfiles, request, &response);
  if (!status.ok()) return Fail(status);
  if (as_json) {
    json out = json::array();
    for (const v1::ProfileSummary& p : response.profiles()) {
      out.push_back({{"id", p.id()},
                     {"context", ContextJson(p.context())},
                     {"campaigns", p.campaigns()},
                     {"launches", p.launches()},
                     {"measurements", p.measurements()},
                     {"job_reports", p.job_reports()},
                     {"table_version", p.table_version()},
                     {"rules_not_default", p.rules_not_default()},
                     {"updated_at", p.updated_at()}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  printf("%4s  %-12s %-10s %-10s %6s %5s %4s %-24s %9s %7s %7s %8s  %s\n", "id",
         "cluster", "library", "version", "procs", "nodes", "ppn", "layout", "campaigns",
         "points", "reports", "table", "not default");
  for (const v1::ProfileSummary& p : response.profiles()) {
    const v1::Context& x = p.context();
    printf("%4lld  %-12s %-10s %-10s %6d %5d %4d %-24s %9d %7d %7d %8s  %d\n",
           static_cast<long long>(p.id()), x.cluster().c_str(),
           x.library().c_str(), x.library_version().c_str(), x.comm_size(),
           x.nodes(), x.ppn(), LayoutText(ContextFromProto(x)).c_str(), p.campaigns(),
           p.measurements(),
           p.job_reports(),
           p.table_version() ? ("v" + std::to_string(p.table_version())).c_str()
                             : "-",
           p.rules_not_default());
  }
  if (response.profiles().empty()) printf("(no profiles yet)\n");
  return 0;
}

// The library's whole-job choices measured in the profile (native:han, in a
// launch of its own) against default, per regime: a table cannot choose them
// per call, so this is the admin's question alone — launch jobs of this
// layout with it, or not.
void PrintWholeJobChoices(const v1::GetProfileResponse& response) {
  struct Tally {
    int points = 0, faster = 0, slower = 0;
    double log_sum = 0, best = 0, worst = 1e300;
    std::string best_at, worst_at;
  };
  // algorithm -> regime -> tally
  std::map<std::string, std::map<std::string, Tally>> tallies;
  for (const WholeJobPoint& p : WholeJobPoints(response)) {
    const double speedup = p.default_seconds / p.choice_seconds;
    Tally& t = tallies[p.algorithm][std::string(NameOf(p.regime))];
    ++t.points;
    t.faster += speedup >= 1.05 ? 1 : 0;
    t.slower += speedup <= 1 / 1.05 ? 1 : 0;
    t.log_sum += std::log(speedup);
    const std::string at =
        std::string(InfoOf(p.collective).name) + " " + std::to_string(p.bytes) + " B";
    if (speedup > t.best) t.best = speedup, t.best_at = at;
    if (speedup < t.worst) t.worst = speedup, t.worst_at = at;
  }
  if (tallies.empty()) return;
  printf("\nwhole-job choices (the library's own, enabled when a job starts: no table "
         "chooses them per call)\n");
  for (const auto& [algorithm, regimes] : tallies) {
    printf("%s (Open MPI's coll/han; enable for a job: mpirun --mca coll_han_priority "
           "100)\n",
           algorithm.c_str());
    // The whole job takes it or not, so the verdict is over every point and
    // regime measured: a loss anywhere is a loss for the jobs that call there.
    int points = 0, faster = 0, slower = 0;
    double log_sum = 0;
    for (const auto& [regime, t] : regimes) {
      points += t.points;
      faster += t.faster;
      slower += t.slower;
      log_sum += t.log_sum;
    }
    const double geomean = std::exp(log_sum / points);
    if (slower == 0 && geomean >= 1.05) {
      printf("  verdict: enable it for jobs of this layout: faster at %d of %d (point, "
             "regime) pairs, slower at none, geometric mean %.3f\n",
             faster, points, geomean);
    } else if (faster == 0 || geomean < 1) {
      printf("  verdict: keep it off: slower than default at %d of %d (point, regime) "
             "pairs, faster at %d, geometric mean %.3f\n",
             slower, points, faster, geomean);
    } else {
      printf("  verdict: only for jobs whose calls are where it wins: faster at %d of %d "
             "(point, regime) pairs, slower at %d, geometric mean %.3f (the points are "
             "above)\n",
             faster, points, slower, geomean);
    }
    printf("  %-10s %6s %7s %7s %9s  %s\n", "regime", "points", "faster", "slower",
           "geomean", "default time / its time: best, worst");
    for (Regime r : kAllRegimes) {  // in the evaluation's order
      auto it = regimes.find(std::string(NameOf(r)));
      if (it == regimes.end()) continue;
      const std::string& regime = it->first;
      const Tally& t = it->second;
      printf("  %-10s %6d %7d %7d %9.3f  %.2f (%s), %.2f (%s)\n", regime.c_str(), t.points,
             t.faster, t.slower, std::exp(t.log_sum / t.points), t.best, t.best_at.c_str(),
             t.worst, t.worst_at.c_str());
    }
  }
}

int ShowProfile(const Connection& c, int64_t id, bool as_json) {
  v1::GetProfileRequest request;
  request.set_id(id);
  v1::GetProfileResponse response;
  absl::Status status = Ask(c, &v1::Tuning::Stub::GetProfile, request, &response);
  if (!status.ok()) return Fail(status);
  if (as_json) {
    json points = json::array();
    for (const v1::PointSummary& p : response.points()) {
      points.push_back({{"collective", p.collective()},
                        {"algorithm", p.algorithm()},
                        {"msg_bytes", p.msg_bytes()},
                        {"problem", p.problem()},
                        {"launches", p.launches()},
                        {"samples", p.samples()},
                        {"median_seconds", p.median_seconds()},
                        {"min_seconds", p.min_seconds()},
                        {"max_seconds", p.max_seconds()},
                        {"regime", p.regime().empty() ? "sync" : p.regime()},
                        {"held_out", p.held_out()}});
    }
    json online = json::array();
    for (const v1::OnlineSummary& o : response.online()) {
      online.push_back({{"collective", o.collective()},
                        {"algorithm", o.algorithm()},
                        {"min_bytes", o.min_bytes()},
                        {"max_bytes", o.max_bytes()},
                        {"jobs", o.jobs()},
                        {"timed_calls", o.timed_calls()},
                        {"explored_calls", o.explored_calls()},
                        {"median_seconds", o.median_seconds()}});
    }
    json launches = json::array();
    for (const v1::CampaignLaunch& l : response.campaign_launches()) {
      launches.push_back({{"campaign", l.campaign()},
                          {"launch", l.launch()},
                          {"host", l.host()},
                          {"points", l.points()},
                          {"uploaded_at", l.uploaded_at()},
                          {"held_out", l.held_out()},
                          {"uid", l.has_uid() ? json(l.uid()) : json()},
                          {"gid", l.has_gid() ? json(l.gid()) : json()}});
    }
    json out = {{"id", response.profile().id()},
                {"context", ContextJson(response.profile().context())},
                {"table_version", response.profile().table_version()},
                {"points", points},
                {"online", online},
                {"campaign_launches", launches}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  const v1::Context& x = response.profile().context();
  printf("profile %lld: cluster '%s', %s %s, %d processes on %d nodes (%d per "
         "node; layout %s)\n",
         static_cast<long long>(id), x.cluster().c_str(), x.library().c_str(),
         x.library_version().c_str(), x.comm_size(), x.nodes(), x.ppn(),
         LayoutText(ContextFromProto(x)).c_str());
  printf("%-22s %-44s %12s %8s %12s  %s\n", "collective", "algorithm", "bytes",
         "launches", "median_us", "regime");
  for (const v1::PointSummary& p : response.points()) {
    // Irregular collectives: collective/distribution, average block bytes.
    const std::string collective =
        p.problem().empty() ? p.collective() : p.collective() + "/" + p.problem();
    printf("%-22s %-44s %12lld %8d %12.2f  %s%s\n", collective.c_str(),
           p.algorithm().c_str(), static_cast<long long>(p.msg_bytes()),
           p.launches(), p.median_seconds() * 1e6,
           p.regime().empty() ? "sync" : p.regime().c_str(),
           p.held_out() ? " (held out)" : "");
  }
  PrintWholeJobChoices(response);
  if (response.campaign_launches_size() > 0) {
    // uid: who uploaded the launch, as munged or the unix socket's peer
    // credentials vouch, else "-" (not identified, or stored before
    // colltuned recorded it).
    printf("\ncampaign launches\n");
    printf("%-24s %6s %-20s %7s %-24s %6s  %s\n", "campaign", "launch", "host",
           "points", "uploaded", "uid", "kind");
    for (const v1::CampaignLaunch& l : response.campaign_launches()) {
      const std::string uid = l.has_uid() ? std::to_string(l.uid()) : "-";
      printf("%-24s %6d %-20s %7d %-24s %6s  %s\n", l.campaign().c_str(), l.launch(),
             l.host().c_str(), l.points(), l.uploaded_at().c_str(), uid.c_str(),
             l.held_out() ? "held out" : "campaign");
    }
  }
  if (response.online_size() > 0) {
    printf("\nonline evidence (job reports; median over jobs of each job's "
           "median)\n");
    printf("%-22s %-44s %21s %5s %11s %9s %12s\n", "collective", "algorithm",
           "bytes", "jobs", "timed", "explored", "median_us");
    for (const v1::OnlineSummary& o : response.online()) {
      const std::string range =
          std::to_string(o.min_bytes()) + "-" + std::to_string(o.max_bytes());
      printf("%-22s %-44s %21s %5d %11lld %9lld %12.2f\n", o.collective().c_str(),
             o.algorithm().c_str(), range.c_str(), o.jobs(),
             static_cast<long long>(o.timed_calls()),
             static_cast<long long>(o.explored_calls()), o.median_seconds() * 1e6);
    }
  }
  return 0;
}

}  // namespace colltune::cli
