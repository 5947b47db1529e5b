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

#include "common/report.h"
#include "common/table.h"
#include "shim/mpi/mpi.h"
#include "shim/runtime/grpc_call.h"
#include "shim/runtime/context.h"
#include "shim/runtime/observer.h"

namespace colltune::shim {

// Rank 0's reporting settings, fixed at MPI_Init.
struct ReportPlan {
  bool enabled = false;
  std::string spool_dir;
  std::string agent;   // empty: spool only
  std::string server;  // empty: spool only
  // The shim reaches `server` with its own gRPC call (no TLS, a plain
  // address); else only the agent can.
  bool direct = false;
  int timeout_ms = 300;
  int interval_s = 0;  // snapshots; 0: none
  std::string job_id, run_id;
  bool agent_stderr = false;  // COLLTUNE_VERBOSE >= 2
};

// Rank 0's plan from its settings and context.
ReportPlan MakeReportPlan(const std::string& spool_dir, const std::string& agent,
                          const std::string& server, bool tls, int timeout_ms,
                          const std::string& job_id, bool report);

// What MPI_Finalize may spend waiting for the daemon's answer to the final
// report; after it the report stays spooled and the agent, detached, sends it
// again (a resent report replaces the one the daemon got).
inline constexpr int kFinalizeAnswerMs = 3;

// What MPI_Finalize leaves to do after PMPI_Finalize: rank 0's report.
struct FinalDelivery {
  bool pending = false;
  Report report;
  ReportPlan plan;
};

// Collective over `world` (every rank calls it with its totals and its
// counters of counted.h, counted::kCells of them), before PMPI_Finalize:
// combines the ranks' statistics into rank 0's report.
FinalDelivery GatherFinalReport(MPI_Comm world, const Totals& mine, const uint64_t* counts,
                                const ReportPlan& plan, const JobContext& context,
                                const Table& table);

// Rank 0, after PMPI_Finalize (no MPI, so no rank waits for it): spools the
// report and sends it with one gRPC call of its own, waiting at most
// kFinalizeAnswerMs for the answer; a sent report leaves the spool. It starts
// the agent, detached and never waited for, only where the shim cannot send
// (TLS; a daemon that wants a MUNGE credential) or older reports wait in the
// spool. Returns a line for COLLTUNE_VERBOSE.
std::string DeliverFinalReport(const FinalDelivery& delivery);

// Rank 0 alone, inside a collective: spools `mine` as a snapshot and, where
// the shim reaches the daemon itself, sends it without waiting for the
// answer (*pending: the call in flight, closed by the next call). Never
// blocks on the daemon, never starts a process.
void SnapshotReport(const Totals& mine, const uint64_t* counts, const ReportPlan& plan,
                    const JobContext& context, const Table& table, PendingCall* pending);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_REPORT_H_
