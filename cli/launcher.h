// How `colltune campaign` and `colltune evaluate` start colltune-bench: one
// Launcher runs one MPI job at a time and says how it ended. Two exist:
// mpirun (a child process, launcher.cc) and Slurm (sbatch + srun, followed by
// polling, slurm_launcher.cc).
#ifndef COLLTUNE_CLI_LAUNCHER_H_
#define COLLTUNE_CLI_LAUNCHER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace colltune::cli {

// One MPI job of the benchmark.
struct Job {
  std::vector<std::string> program;  // the benchmark and its arguments
  int np = 1;                        // MPI processes
  std::string label;                 // "launch 2/5", for messages
  std::string name;                  // "CAMPAIGN-launch-1": job and file names
  // Where the job's stdout goes; empty: this process's stdout.
  std::string stdout_path;
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  // The command that runs `job`, for the log line.
  virtual std::string Describe(const Job& job) const = 0;
  // Runs the job to its end. OK when every process succeeded; otherwise why
  // not, meant for the operator (exit code, scheduler state, job id).
  virtual absl::Status Run(const Job& job) = 0;
  // A directory every process of a job can write to and this process can
  // read (files a job hands back, e.g. evaluation points).
  virtual std::string SharedDir() const = 0;
};

// mpirun (or any launcher taking `-np N program...`), given as its words,
// e.g. {"mpirun", "--hostfile", "hosts"}.
std::unique_ptr<Launcher> MakeMpirunLauncher(std::vector<std::string> mpirun);

// A finished child process.
struct ProcessResult {
  int exit_code = 0;  // 128+signal when killed
  std::string out, err;
};
// Runs argv (looked up on PATH) with stdin from /dev/null, collecting its
// stdout and stderr. An error only when it could not start.
absl::StatusOr<ProcessResult> Capture(const std::vector<std::string>& argv);

// The executable `name` on $PATH (or `name` itself when it holds a slash and
// is executable); empty when there is none.
std::string FindOnPath(const std::string& name);

// Words of `text` split at blanks.
std::vector<std::string> Words(const std::string& text);

}  // namespace colltune::cli

#endif  // COLLTUNE_CLI_LAUNCHER_H_
