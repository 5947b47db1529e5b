// Job reports: the shim's statistics (observer.h) on their way to colltuned.
//
// At MPI_Finalize every rank's totals are combined on rank 0 with a fixed
// number of collectives over the shim's own communicator (a gather of the
// cell keys, a broadcast of their union, one reduction of the counters), not
// one message per call. Rank 0 writes the report into the spool directory
// (atomically, replacing an earlier snapshot of the same run) and runs the
// agent, `colltune flush`, within COLLTUNE_TIMEOUT_MS: the agent sends every
// spooled report, so reports a daemon outage kept are sent by the next job,
// or by an administrator's `colltune flush`.
//
// Long jobs also write periodic snapshots of rank 0's own statistics (no MPI
// communication; not under MPI_THREAD_MULTIPLE), sent by an agent that runs
// detached; a job killed at its time limit still leaves evidence. The final
// report replaces the snapshots (same run id).
#ifndef COLLTUNE_SHIM_RUNTIME_REPORT_H_
#define COLLTUNE_SHIM_RUNTIME_REPORT_H_

#include <sys/types.h>

#include <string>

#include "common/table.h"
#include "shim/mpi/mpi.h"
#include "shim/runtime/context.h"
#include "shim/runtime/observer.h"

namespace colltune::shim {

// Rank 0's reporting settings, fixed at MPI_Init.
struct ReportPlan {
  bool enabled = false;
  std::string spool_dir;
  std::string agent;   // empty: spool only
  std::string server;  // empty: spool only
  int timeout_ms = 300;
  int interval_s = 0;  // snapshots; 0: none
  std::string job_id, run_id;
  bool agent_stderr = false;  // COLLTUNE_VERBOSE >= 2
};

// Rank 0's plan from its settings and context.
ReportPlan MakeReportPlan(const std::string& spool_dir, const std::string& agent,
                          const std::string& server, int timeout_ms,
                          const std::string& job_id, bool report);

// Collective over `world` (every rank calls it with its totals and its
// counters of counted.h, counted::kCells of them); rank 0 spools the combined
// report and sends what is spooled. Returns on rank 0 a line for
// COLLTUNE_VERBOSE, empty elsewhere.
std::string FinalReport(MPI_Comm world, const Totals& mine, const uint64_t* counts,
                        const ReportPlan& plan, const JobContext& context,
                        const Table& table);

// Rank 0 alone: spools `mine` as a snapshot and starts a detached agent
// (whose pid goes to *agent_pid, reaped by the next call). Never blocks on
// the daemon.
void SnapshotReport(const Totals& mine, const uint64_t* counts, const ReportPlan& plan,
                    const JobContext& context, const Table& table, pid_t* agent_pid);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_REPORT_H_
