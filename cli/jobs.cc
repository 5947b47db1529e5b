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

int ListJobs(const Connection& c, int64_t profile, int limit, bool as_json) {
  auto stub = client::Connect(c.server);
  v1::ListJobReportsRequest request;
  request.set_profile_id(profile);
  request.set_limit(limit);
  v1::ListJobReportsResponse response;
  grpc::Status s = stub->ListJobReports(Call(c).get(), request, &response);
  if (!s.ok()) return Fail(client::FromGrpc(s, c.server));
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
      out.push_back({{"id", r.id()},
                     {"job_id", r.job_id()},
                     {"run_id", r.run_id()},
                     {"received_at", r.received_at()},
                     {"table_version", r.table_version()},
                     {"final", r.final()},
                     {"ranks", r.ranks()},
                     {"collectives", collectives}});
    }
    std::cout << nlohmann::json{{"total", response.total()}, {"reports", out}}.dump(2)
              << "\n";
    return 0;
  }
  printf("%d job reports in all, newest %d:\n", response.total(),
         response.reports_size());
  printf("%-24s %-20s %6s %5s  %s\n", "received", "job", "table", "ranks",
         "observed speedup per collective");
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
    printf("%-24s %-20s %6lld %5d  %s\n", r.received_at().c_str(), r.job_id().c_str(),
           static_cast<long long>(r.table_version()), r.ranks(), seen.c_str());
  }
  return 0;
}

}  // namespace colltune::cli
