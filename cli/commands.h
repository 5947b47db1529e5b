// The `colltune` subcommands. Each returns the process exit code: 0 done,
// 1 the daemon could not be reached or refused, or a launched job failed;
// 2 bad arguments (most usage errors are caught by the parser in main.cc
// before a command runs).
#ifndef COLLTUNE_CLI_COMMANDS_H_
#define COLLTUNE_CLI_COMMANDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cli/slurm_launcher.h"
#include "common/job_context.h"

namespace colltune::cli {

struct Connection {
  std::string server;  // empty: $COLLTUNE_SERVER or the default socket
  int timeout_ms = 5000;
  // File whose first line is the daemon's admin token, for rollback, pin
  // and unpin; empty: $COLLTUNE_ADMIN_TOKEN_FILE.
  std::string admin_token_file;
};

enum class Format { kText, kJson, kShim };

// inspect.cc: what the daemon knows.
struct TableArgs {
  JobContext context;
  Format format = Format::kText;
};
// Every algorithm colltune knows, by collective; with `library` ("Open MPI",
// "MPICH"), only that library's native algorithms.
int Algorithms(bool json, const std::string& library);
// Lists the libraries' known defects (common/quirks.h), optionally one library's.
int Quirks(bool json, const std::string& library);
int ShowTable(const Connection& c, const TableArgs& args);
int ListProfiles(const Connection& c, const std::string& cluster,
                 const std::string& library, bool json);
int ShowProfile(const Connection& c, int64_t id, bool json);

// history.cc: table versions, rollback, and pins.
int ShowHistory(const Connection& c, int64_t profile, int64_t version, bool json);
int Rollback(const Connection& c, int64_t profile, int64_t version);
struct PinArgs {
  int64_t profile = 0;
  std::string collective, algorithm, note;
  int64_t min_bytes = 0;
  int64_t max_bytes = -1;  // no upper bound
};
int AddPin(const Connection& c, const PinArgs& args);
int RemovePin(const Connection& c, int64_t profile, int64_t pin);
int ListPins(const Connection& c, int64_t profile, bool json);

// jobs.cc: a context's newest job reports, with observed speedups.
int ListJobs(const Connection& c, int64_t profile, int limit, bool json);

// violations.cc: the guideline report.
int ShowViolations(const Connection& c, int64_t profile, bool json);

// flush.cc: job reports spooled by the shim, sent to the daemon.
std::string DefaultSpoolDir();  // $COLLTUNE_SPOOL_DIR, else the shim's default
int Flush(const Connection& c, const std::string& spool_dir);

// launch.cc: colltune-bench under mpirun, or as Slurm jobs.
struct LaunchArgs {
  std::string launcher = "mpirun";  // or "slurm"
  SlurmOptions slurm;               // --launcher slurm
  int np = 0;
  int launches = 5;
  std::string name;     // campaign label; empty: made up and printed
  // --launcher mpirun: the launcher and its own options, split at blanks,
  // e.g. "mpirun --hostfile hosts"; -np and the benchmark are appended.
  std::string mpirun = "mpirun";
  std::string bench;       // a path; empty: bench_name next to this program
  std::string bench_name = "colltune-bench";
  std::string cluster;
  std::string log_dir;     // each launch's stdout goes to a file here
  std::vector<std::string> bench_args;  // after `--`
  bool keep_going = false;
  bool mpich = false;  // --mpi mpich: Hydra's options place the processes
  // --layouts (cli/layouts.h): one campaign or evaluation per layout, on the
  // nodes --hosts names (mpirun) or that Slurm picks. Empty: --np as given.
  std::vector<std::string> layouts;
  std::vector<std::string> hosts;
  // --whole-job: the library's choices a job makes at launch (han: Open MPI's
  // coll/han), each timed in one more launch per layout (campaigns only).
  std::vector<std::string> whole_job;
  // Held-out validation launches after a campaign (campaign --validate;
  // docs/architecture.md): 0 for none, else at least 3.
  int validate = 3;
};
int RunCampaign(const Connection& c, const LaunchArgs& args);
int RunEvaluate(const Connection& c, const LaunchArgs& args);
// `colltune validate`: args.launches held-out validation launches of the
// table the profile has now, labelled args.name.
int RunValidate(const Connection& c, const LaunchArgs& args);

}  // namespace colltune::cli

#endif  // COLLTUNE_CLI_COMMANDS_H_
