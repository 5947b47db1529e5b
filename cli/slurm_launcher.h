// The Slurm launcher: each job is a batch job (sbatch of a script that runs
// the benchmark with srun), followed by polling the controller until it ends.
// Its output files are read as they grow and passed on to this process's
// stdout and stderr, so a campaign under Slurm reads like one under mpirun.
#ifndef COLLTUNE_CLI_SLURM_LAUNCHER_H_
#define COLLTUNE_CLI_SLURM_LAUNCHER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/launcher.h"

namespace colltune::cli {

struct SlurmOptions {
  int nodes = 0;                 // sbatch --nodes; 0: Slurm's choice
  std::string partition;         // sbatch --partition; empty: the default one
  std::string time_limit;        // sbatch --time, e.g. 30:00; empty: the partition's
  std::string account;           // sbatch --account
  std::vector<std::string> sbatch_args;  // more sbatch options, passed as given
  std::vector<std::string> srun_args;    // more srun options (--distribution=cyclic)
  // srun's --mpi: pmix for Open MPI (Debian builds it with PMIx only), pmi2
  // for MPICH (under pmix MPICH runs every process as a singleton).
  std::string srun_mpi = "pmix";
  // Batch scripts and job output; must be on a filesystem the job's first
  // node shares with this host. Empty: $XDG_CACHE_HOME/colltune/slurm (else
  // ~/.cache/colltune/slurm).
  std::string job_dir;
  double poll_seconds = 0.5;  // between two looks at the job's state
};

// Fails when sbatch or scontrol is not on PATH or the job directory
// cannot be made.
absl::StatusOr<std::unique_ptr<Launcher>> MakeSlurmLauncher(SlurmOptions options);

// What `scontrol show job -o` says about a job (the fields used here).
struct SlurmJobState {
  std::string state;      // JobState: PENDING, RUNNING, COMPLETED, CANCELLED, ...
  std::string reason;     // Reason
  std::string exit_code;  // ExitCode, "exit:signal"
  std::string nodes;      // NodeList
  std::string time_limit; // TimeLimit
};
SlurmJobState ParseScontrolJob(const std::string& line);
// True once the job will not run again (COMPLETING is not an end: its
// processes may still write output).
bool SlurmStateIsFinal(const std::string& state);

}  // namespace colltune::cli

#endif  // COLLTUNE_CLI_SLURM_LAUNCHER_H_
