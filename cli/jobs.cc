// colltune jobs: a context's newest job reports and what they observed.
#include <cstdio>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/rpc.h"
#include "client/client.h"

namespace colltune::cli {
namespace {

// "iallreduce 36 (4-7 B: 8, 32-63 B: 28), ibarrier 12 (0 B)": calls per
// counted collective, then per size bucket (entries come sorted by
// collective and size).
std::string CountedLine(const v1::JobReportSummary& r) {
  std::string out;
  for (int i = 0; i < r.counted_size();) {
    const std::string& name = r.counted(i).collective();
    int64_t total = 0;
    std::string buckets;
    for (; i < r.counted_size() && r.counted(i).collective() == name; ++i) {
      const v1::CountedCalls& c = r.counted(i);
      total += c.calls();
      if (!buckets.empty()) buckets += ", ";
      buckets += c.max_bytes() == 0 ? std::string("0 B")
                                    : std::to_string(c.min_bytes()) + "-" +
                                          std::to_string(c.max_bytes()) + " B";
      buckets += ": " + std::to_string(c.calls());
    }
    if (!out.empty()) out += ", ";
    out += name + " " + std::to_string(total) + " (" + buckets + ")";
  }
  return out;
}

}  // namespace

int ListJobs(const Connection& c, int64_t profile, int limit, bool as_json) {
  v1::ListJobReportsRequest request;
  request.set_profile_id(profile);
  request.set_limit(limit);
  v1::ListJobReportsResponse response;
  absl::Status s = Ask(c, &v1::Tuning::Stub::ListJobReports, request, &response);
  if (!s.ok()) return Fail(s);
  if (as_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const v1::JobReportSummary& r : response.reports()) {
      nlohmann::json collectives = nlohmann::json::array();
      for (const v1::CollectiveObservation& o : r.collectives()) {
        collectives.push_back({{"collective", o.collective()},
                               {"calls", o.calls()},
                               {"tuned_calls", o.tuned_calls()},
                               {"speedup", o.speedup()},
                               {"compared_calls", o.compared_calls()}});
      }
      nlohmann::json counted = nlohmann::json::array();
      for (const v1::CountedCalls& c : r.counted()) {
        counted.push_back({{"kind", c.kind()},
                           {"collective", c.collective()},
                           {"min_bytes", c.min_bytes()},
                           {"max_bytes", c.max_bytes()},
                           {"calls", c.calls()}});
      }
      out.push_back({{"id", r.id()},
                     {"job_id", r.job_id()},
                     {"run_id", r.run_id()},
                     {"received_at", r.received_at()},
                     {"table_version", r.table_version()},
                     {"final", r.final()},
                     {"ranks", r.ranks()},
                     {"uid", r.has_uid() ? nlohmann::json(r.uid()) : nlohmann::json()},
                     {"gid", r.has_gid() ? nlohmann::json(r.gid()) : nlohmann::json()},
                     {"slurm_job_id", r.slurm_job_id()},
                     {"collectives", collectives},
                     {"counted", counted}});
    }
    std::cout << nlohmann::json{{"total", response.total()}, {"reports", out}}.dump(2)
              << "\n";
    return 0;
  }
  printf("%d job reports in all, newest %d:\n", response.total(),
         response.reports_size());
  printf("%-24s %-20s %6s %5s %6s  %s\n", "received", "job", "table", "ranks",
         "uid", "observed speedup per collective");
  for (const v1::JobReportSummary& r : response.reports()) {
    std::string seen;
    for (const v1::CollectiveObservation& o : r.collectives()) {
      char cell[96];
      if (o.tuned_calls() == 0) {
        snprintf(cell, sizeof cell, "%s default", o.collective().c_str());
      } else if (o.compared_calls() == 0) {
        snprintf(cell, sizeof cell, "%s not-compared", o.collective().c_str());
      } else {
        snprintf(cell, sizeof cell, "%s %.2fx", o.collective().c_str(), o.speedup());
      }
      if (!seen.empty()) seen += ", ";
      seen += cell;
    }
    // uid: who sent it, as munged or the unix socket's peer credentials vouch,
    // else "-".
    const std::string uid = r.has_uid() ? std::to_string(r.uid()) : "-";
    printf("%-24s %-20s %6lld %5d %6s  %s\n", r.received_at().c_str(),
           r.job_id().c_str(), static_cast<long long>(r.table_version()), r.ranks(),
           uid.c_str(), seen.c_str());
    // Non-blocking, persistent and neighbourhood collectives: counted, not
    // tuned (calls summed over ranks, per size bucket).
    if (r.counted_size() > 0) printf("%33scounted, not tuned: %s\n", "", CountedLine(r).c_str());
  }
  return 0;
}

}  // namespace colltune::cli
