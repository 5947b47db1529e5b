#include "shim/runtime/report.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "common/limits.h"
#include "common/report.h"
#include "common/table_wire.h"
#include "shim/runtime/agent.h"
#include "shim/runtime/cache.h"
#include "shim/runtime/counted.h"
#include "shim/runtime/log.h"

namespace colltune::shim {
namespace {

constexpr int kCounters = 4;  // calls, timed, explored, sum_ns; then the bins
constexpr int kRow = kCounters + histogram::kNumBins;

constexpr char kReportJob[] = "/colltune.v1.Tuning/ReportJob";

std::string Hostname() {
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) != 0) return "host";
  return name;
}

// Letters, digits, '-', '_', '.' only: a file name and a label.
std::string Sanitized(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    out += ok ? c : '_';
  }
  return out.substr(0, 100);
}

Report MakeReport(const Totals& totals, const uint64_t* counts, const ReportPlan& plan,
                  const JobContext& context, const Table& table, bool final,
                  int ranks) {
  Report r;
  r.job_id = plan.job_id;
  r.run_id = plan.run_id;
  r.context = context;
  if (r.context.library.empty()) r.context.library = "unknown";
  if (r.context.library_version.empty()) r.context.library_version = "unknown";
  r.context.nodes = std::max(1, context.nodes);
  r.context.ppn = std::max(1, context.ppn);
  if (const Section* s = SelectSection(table, static_cast<uint32_t>(context.comm_size))) {
    r.table_version = s->version;
  }
  r.final = final;
  r.ranks = ranks;
  for (const auto& [key, stats] : totals) {
    if (stats.timed == 0) continue;
    if (r.timings.size() >= static_cast<size_t>(limits::kMaxTimingsPerReport)) break;
    const uint32_t cell = static_cast<uint32_t>(key & 0xffffffffu);
    const int section = static_cast<int>((key >> 32) & 0xff);
    ReportTiming t;
    t.comm_size = static_cast<int>(key >> 40);
    if (section != kNoSection && section < static_cast<int>(table.sections.size())) {
      t.profile_id = table.sections[section].profile_id;
    }
    t.collective = static_cast<Collective>(cell >> 16);
    t.algorithm = static_cast<Algorithm>((cell >> 8) & 0xff);
    t.bucket = static_cast<int>(cell & 0xff);
    t.calls = std::max(stats.calls, stats.timed);
    t.timed = stats.timed;
    t.explored = stats.explored;
    t.sum_ns = stats.sum_ns;
    int first = 0, last = histogram::kNumBins - 1;
    while (first < last && stats.bins[first] == 0) ++first;
    while (last > first && stats.bins[last] == 0) --last;
    t.first_bin = first;
    t.bins.assign(stats.bins.begin() + first, stats.bins.begin() + last + 1);
    r.timings.push_back(std::move(t));
  }
  for (int i = 0; i < counted::kCells; ++i) {
    if (counts[i] == 0) continue;
    r.counts.push_back({i / histogram::kNumBuckets, i % histogram::kNumBuckets,
                        std::min<uint64_t>(counts[i], uint64_t{1} << 50)});
  }
  return r;
}

std::string SpoolPath(const ReportPlan& plan) {
  return plan.spool_dir + "/" + Sanitized(plan.run_id) + ".report";
}

bool Spool(const Report& report, const ReportPlan& plan, std::string* error) {
  mkdir(plan.spool_dir.c_str(), 0700);  // WriteFileAtomic makes parents
  return WriteFileAtomic(SpoolPath(plan), FormatReport(report), error);
}

// Whether reports other than this run's wait in the spool.
bool OthersSpooled(const ReportPlan& plan) {
  DIR* d = opendir(plan.spool_dir.c_str());
  if (d == nullptr) return false;
  const std::string mine = SpoolPath(plan).substr(plan.spool_dir.size() + 1);
  bool found = false;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != mine && name.size() > 7 && name.compare(name.size() - 7, 7, ".report") == 0) {
      found = true;
      break;
    }
  }
  closedir(d);
  return found;
}

std::vector<std::string> FlushArgs(const ReportPlan& plan) {
  return {"--server", plan.server, "--timeout-ms",
          std::to_string(std::max(50, plan.timeout_ms)), "flush", "--spool-dir",
          plan.spool_dir};
}

// Adds row-wise counters of `stats` into `row`.
void Fill(const CellStats& stats, uint64_t* row) {
  row[0] = stats.calls;
  row[1] = stats.timed;
  row[2] = stats.explored;
  row[3] = stats.sum_ns;
  for (int i = 0; i < histogram::kNumBins; ++i) row[kCounters + i] = stats.bins[i];
}

void Unfill(const uint64_t* row, CellStats* stats) {
  stats->calls = row[0];
  stats->timed = row[1];
  stats->explored = row[2];
  stats->sum_ns = row[3];
  for (int i = 0; i < histogram::kNumBins; ++i) {
    // Counts summed over ranks: saturate rather than wrap.
    stats->bins[i] = static_cast<uint32_t>(
        std::min<uint64_t>(row[kCounters + i], 0xffffffffu));
  }
}

}  // namespace

ReportPlan MakeReportPlan(const std::string& spool_dir, const std::string& agent,
                          const std::string& server, bool tls, int timeout_ms,
                          const std::string& job_id, bool report) {
  ReportPlan plan;
  plan.enabled = report && !spool_dir.empty();
  plan.spool_dir = spool_dir;
  plan.agent = agent;
  plan.server = server;
  plan.direct = !server.empty() && !tls && CallableDirectly(server);
  plan.timeout_ms = timeout_ms;
  const std::string host = Sanitized(Hostname());
  const std::string run = host + "-" + std::to_string(getpid()) + "-" +
                          std::to_string(static_cast<long long>(time(nullptr)));
  plan.run_id = run;
  // Outside a scheduler every run is a job of its own.
  plan.job_id = job_id.empty() ? "local:" + run : job_id.substr(0, 128);
  plan.agent_stderr = VerboseLevel() >= 2;
  return plan;
}

FinalDelivery GatherFinalReport(MPI_Comm world, const Totals& mine,
                                const uint64_t* counted_mine, const ReportPlan& plan,
                                const JobContext& context, const Table& table) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(world, &rank);
  PMPI_Comm_size(world, &size);
  // Every rank runs the same sequence of collectives whatever it holds.
  std::vector<uint64_t> keys;
  for (const auto& [key, stats] : mine) {
    if (stats.timed > 0) keys.push_back(key);
  }
  int n = static_cast<int>(keys.size());
  std::vector<int> counts(rank == 0 ? size : 0), displs(rank == 0 ? size : 0);
  PMPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, world);
  std::vector<uint64_t> all;
  if (rank == 0) {
    int total = 0;
    for (int i = 0; i < size; ++i) {
      displs[i] = total;
      total += counts[i];
    }
    all.resize(total);
  }
  PMPI_Gatherv(keys.data(), n, MPI_UINT64_T, all.data(), counts.data(),
               displs.data(), MPI_UINT64_T, 0, world);
  if (rank == 0) {
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    if (all.size() > static_cast<size_t>(limits::kMaxTimingsPerReport)) {
      all.resize(limits::kMaxTimingsPerReport);
    }
  }
  int union_size = static_cast<int>(all.size());
  PMPI_Bcast(&union_size, 1, MPI_INT, 0, world);
  all.resize(union_size);
  PMPI_Bcast(all.data(), union_size, MPI_UINT64_T, 0, world);
  std::vector<uint64_t> rows(static_cast<size_t>(union_size) * kRow, 0);
  for (int i = 0; i < union_size; ++i) {
    auto it = mine.find(all[i]);
    if (it != mine.end()) Fill(it->second, &rows[static_cast<size_t>(i) * kRow]);
  }
  std::vector<uint64_t> sums(rank == 0 ? rows.size() : 0);
  PMPI_Reduce(rows.data(), sums.data(), static_cast<int>(rows.size()),
              MPI_UINT64_T, MPI_SUM, 0, world);
  // The counted collectives: a fixed-size array, summed over ranks.
  std::vector<uint64_t> counted_sums(rank == 0 ? counted::kCells : 0);
  PMPI_Reduce(counted_mine, counted_sums.data(), counted::kCells, MPI_UINT64_T, MPI_SUM, 0,
              world);
  FinalDelivery delivery;
  if (rank != 0 || !plan.enabled) return delivery;

  Totals combined;
  for (int i = 0; i < union_size; ++i) {
    Unfill(&sums[static_cast<size_t>(i) * kRow], &combined[all[i]]);
  }
  delivery.pending = true;
  delivery.report = MakeReport(combined, counted_sums.data(), plan, context, table, true, size);
  delivery.plan = plan;
  return delivery;
}

std::string DeliverFinalReport(const FinalDelivery& delivery) {
  if (!delivery.pending) return "";
  const Report& report = delivery.report;
  const ReportPlan& plan = delivery.plan;
  std::string error;
  if (!Spool(report, plan, &error)) {
    return "report not written: " + error;
  }
  uint64_t timed = 0, explored = 0;
  for (const ReportTiming& t : report.timings) {
    timed += t.timed;
    explored += t.explored;
  }
  std::string line = "report of " + std::to_string(report.timings.size()) + " cells (" +
                     std::to_string(timed) + " timed calls, " + std::to_string(explored) +
                     " explored) and " + std::to_string(report.counts.size()) +
                     " counted cells spooled to " + SpoolPath(plan);
  if (plan.server.empty()) return line + " (no daemon: `colltune flush` sends it)";
  bool agent_needed = !plan.direct;
  if (plan.direct) {
    PendingCall call = StartUnary(plan.server, kReportJob, wire::EncodeReportJobRequest(report),
                                  std::max(plan.timeout_ms, 1));
    const GrpcCallResult sent = FinishUnary(&call, kFinalizeAnswerMs, 1 << 16);
    if (sent.ok) {
      unlink(SpoolPath(plan).c_str());
      line += " and sent to " + plan.server;
      // Reports of earlier jobs that could not be sent wait for the agent.
      agent_needed = OthersSpooled(plan);
      if (!agent_needed) return line;
    } else if (sent.timed_out) {
      // The whole request went out but no answer came in time (the daemon
      // may be retuning on a report, or busy): it may have stored the
      // report or not, since closing the connection cancels a call it had
      // not read yet. The agent sends the spooled copy again, which
      // replaces a stored one (same run id), so nothing is lost either way.
      line += " and sent to " + plan.server + " (no answer within " +
              std::to_string(kFinalizeAnswerMs) + " ms: the agent confirms it)";
      agent_needed = true;
    } else if (sent.reached) {
      // The daemon refused it (e.g. it wants a MUNGE credential, which the
      // agent attaches): the agent sends it.
      line += "; the daemon refused the shim's call (" + sent.error + ")";
      agent_needed = true;
    } else {
      return line + "; not sent (" + sent.error +
             "): the next job or `colltune flush` sends it";
    }
  }
  if (plan.agent.empty()) return line + "; no agent: `colltune flush` sends the spool";
  if (StartAgent(plan.agent, FlushArgs(plan), -1, plan.agent_stderr, &error) < 0) {
    return line + "; agent not started (" + error + "): `colltune flush` sends the spool";
  }
  return line + "; the agent sends the spool";
}

void SnapshotReport(const Totals& mine, const uint64_t* counts, const ReportPlan& plan,
                    const JobContext& context, const Table& table, PendingCall* pending) {
  if (!plan.enabled) return;
  // The previous snapshot's answer is not needed: a later report of the run
  // replaces it anyway.
  AbandonUnary(pending);
  const Report report = MakeReport(mine, counts, plan, context, table, false, 1);
  std::string error;
  if (!Spool(report, plan, &error)) {
    LogInfo(1, "snapshot report not written: %s", error.c_str());
    return;
  }
  if (!plan.direct) return;  // the final report's agent sends the spool
  // Connect and send, no waiting for the answer: on a unix socket or
  // loopback a fraction of a millisecond inside this collective.
  *pending = StartUnary(plan.server, kReportJob, wire::EncodeReportJobRequest(report),
                        std::max(plan.timeout_ms, 1));
}

}  // namespace colltune::shim
