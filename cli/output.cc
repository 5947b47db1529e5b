#include "cli/output.h"

#include <cstdio>
#include <iostream>
#include <string>

namespace colltune::cli {

using nlohmann::json;

int Fail(const absl::Status& s) {
  std::cerr << "colltune: " << s.message() << "\n";
  return 1;
}

std::string Bytes(int64_t max_bytes) {
  return max_bytes < 0 ? std::string("inf") : std::to_string(max_bytes);
}

std::string Speedup(double s) {
  if (!(s > 0)) return "-";
  char buf[32];
  snprintf(buf, sizeof buf, "%.2fx", s);
  return buf;
}

std::string PValue(double p) {
  if (!(p >= 0) || p >= 1) return "-";
  if (p < 1e-4) return "<1e-4";
  char buf[32];
  snprintf(buf, sizeof buf, "%.4f", p);
  return buf;
}

json ContextJson(const v1::Context& c) {
  return {{"cluster", c.cluster()},
          {"library", c.library()},
          {"library_version", c.library_version()},
          {"comm_size", c.comm_size()},
          {"nodes", c.nodes()},
          {"ppn", c.ppn()},
          {"placement", c.placement()},
          {"node_sizes", c.node_sizes()}};
}

// Whether a campaign range was decided on synchronized timings only (a
// campaign, or a table version, from before regimes were timed).
bool SyncOnly(const v1::Rule& r) {
  return r.regimes_size() == 0 && !r.pinned() &&
         (r.source().empty() || r.source() == "campaign");
}

std::string RegimesCell(const v1::Rule& r) {
  if (SyncOnly(r)) return "sync only";
  if (r.regimes_size() == 0) return "-";
  std::string out;
  for (const v1::RegimeEvidence& e : r.regimes()) {
    if (!out.empty()) out += r.algorithm() == "default" ? "," : " ";
    out += e.regime();
    if (r.algorithm() != "default") out += " " + Speedup(e.speedup()) + (e.won() ? "+" : "");
  }
  return out;
}

json RuleJson(const v1::Rule& r) {
  json campaigns = json::array();
  for (const std::string& c : r.campaigns()) campaigns.push_back(c);
  json regimes = json::array();
  for (const v1::RegimeEvidence& e : r.regimes()) {
    regimes.push_back({{"regime", e.regime()},
                       {"speedup", e.speedup()},
                       {"p_value", e.p_value()},
                       {"won", e.won()}});
  }
  return {{"collective", r.collective()},
          {"layout", r.layout()},
          {"min_bytes", r.min_bytes()},
          {"max_bytes", r.max_bytes() < 0 ? json(nullptr) : json(r.max_bytes())},
          {"algorithm", r.algorithm()},
          {"speedup", r.speedup()},
          {"p_value", r.p_value()},
          {"launches_default", r.launches_default()},
          {"launches_algorithm", r.launches_algorithm()},
          {"campaigns", campaigns},
          {"pinned", r.pinned()},
          {"regimes", regimes},
          {"loop_algorithm", r.loop_algorithm()},
          {"loop_speedup", r.loop_speedup()},
          {"imbalance_algorithm", r.imbalance_algorithm()},
          {"imbalance_speedup", r.imbalance_speedup()},
          {"sync_only", SyncOnly(r)}};
}

void PrintRules(const v1::TableSection& section) {
  printf("%-22s %10s %10s  %-44s %8s %7s %9s  %s\n", "collective", "min_bytes",
         "max_bytes", "algorithm", "speedup", "p", "launches", "regimes");
  int sync_only = 0;
  for (const v1::Rule& r : section.rules()) {
    const bool is_default = r.algorithm() == "default";
    // A default range is no decision: its evidence would only say that
    // nothing won, so it shows none.
    std::string launches = "-";
    if (!is_default) {
      launches = std::to_string(r.launches_default()) + "/" +
                 std::to_string(r.launches_algorithm());
    }
    if (SyncOnly(r)) ++sync_only;
    // A datatype layout's rule: "bcast@tiled/8B", as in table files.
    const std::string key =
        r.layout().empty() ? r.collective() : r.collective() + "@" + r.layout();
    printf("%-22s %10lld %10s  %-44s %8s %7s %9s  %s%s\n", key.c_str(),
           static_cast<long long>(r.min_bytes()), Bytes(r.max_bytes()).c_str(),
           r.algorithm().c_str(), is_default ? "-" : Speedup(r.speedup()).c_str(),
           is_default ? "-" : PValue(r.p_value()).c_str(), launches.c_str(),
           RegimesCell(r).c_str(), r.pinned() ? "  pinned" : "");
    // A regime switch: what runs instead where the shim finds that regime.
    if (!r.loop_algorithm().empty()) {
      printf("%-22s %10s %10s    back to back: %s (%s over %s there)\n", "", "", "",
             r.loop_algorithm().c_str(), Speedup(r.loop_speedup()).c_str(),
             r.algorithm().c_str());
    }
    if (!r.imbalance_algorithm().empty()) {
      printf("%-22s %10s %10s    after uneven work: %s (%s over %s there)\n", "", "", "",
             r.imbalance_algorithm().c_str(), Speedup(r.imbalance_speedup()).c_str(),
             r.algorithm().c_str());
    }
  }
  if (sync_only > 0) {
    printf("%d range%s decided on synchronized timings only (a campaign from before "
           "colltune timed loops and uneven arrival): run a new campaign to judge "
           "%s in every regime\n",
           sync_only, sync_only == 1 ? " was" : "s were", sync_only == 1 ? "it" : "them");
  }
}

}  // namespace colltune::cli
