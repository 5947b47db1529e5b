// colltune: the administrator's and scripts' command line for colltuned.
// Also the shim's agent: at MPI_Init rank 0 runs `colltune table
// --format=shim ...` to fetch the decision table (shim/runtime/agent.h).
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <map>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/export.h"
#include "cli/launcher.h"
#include "common/catalog.h"
#include "common/command_line.h"

namespace {

using colltune::kUsageError;
using colltune::cli::LaunchArgs;

// Options shared by `campaign` and `evaluate`.
void AddLaunchOptions(CLI::App* cmd, LaunchArgs* a, std::string* mpi,
                      std::string* sbatch_args) {
  CLI::Option* np = cmd->add_option("--np", a->np, "Processes per launch")
                        ->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--layouts", a->layouts,
                  "Node layouts instead of --np, one run each: NODESxPROCESSES or "
                  "per-node sizes, :round_robin to place ranks round robin, e.g. "
                  "2x2,4x1,3+1,2x2:round_robin")
      ->delimiter(',')
      ->excludes(np);
  cmd->add_option("--hosts", a->hosts,
                  "--layouts with --launcher mpirun: the nodes to place them on, "
                  "e.g. n1,n2,n3,n4")
      ->delimiter(',');
  cmd->add_option("--mpi", *mpi,
                  "MPI library: openmpi (colltune-bench, mpirun.openmpi) or "
                  "mpich (colltune-bench-mpich, mpirun.mpich)")
      ->check(CLI::IsMember({"openmpi", "mpich"}))
      ->capture_default_str();
  cmd->add_option("--mpirun", a->mpirun,
                  "--launcher mpirun: the launcher with its own options, split at "
                  "blanks, e.g. \"mpirun --hostfile hosts\" (default: from --mpi)");
  cmd->add_option("--launcher", a->launcher,
                  "How jobs start: mpirun (a child process) or slurm (sbatch of a "
                  "script running srun, followed until it ends)")
      ->check(CLI::IsMember({"mpirun", "slurm"}))
      ->capture_default_str();
  const std::string slurm = "Slurm (--launcher slurm)";
  cmd->add_option("--nodes", a->slurm.nodes, "sbatch --nodes (default: Slurm's choice)")
      ->check(CLI::Range(1, 1 << 24))
      ->group(slurm);
  cmd->add_option("--partition", a->slurm.partition, "sbatch --partition")->group(slurm);
  cmd->add_option("--time", a->slurm.time_limit, "sbatch --time, per job, e.g. 30:00")
      ->group(slurm);
  cmd->add_option("--account", a->slurm.account, "sbatch --account")->group(slurm);
  cmd->add_option("--sbatch-args", *sbatch_args,
                  "More sbatch options, split at blanks, e.g. "
                  "--sbatch-args=\"--qos=high --exclusive\"")
      ->group(slurm);
  cmd->add_option("--srun-mpi", a->slurm.srun_mpi,
                  "srun --mpi (default: pmix for openmpi, pmi2 for mpich)")
      ->group(slurm);
  cmd->add_option("--job-dir", a->slurm.job_dir,
                  "Batch scripts and job output, on a filesystem the nodes share "
                  "(default: ~/.cache/colltune/slurm)")
      ->group(slurm);
  cmd->add_option("--bench", a->bench, "Path of colltune-bench (default: next "
                                       "to colltune, else on PATH)");
  cmd->add_option("--cluster", a->cluster, "Cluster name (default: the daemon's)");
  cmd->add_option("bench-args", a->bench_args,
                  "colltune-bench options after `--`, e.g. -- --sizes 1,1K,1M "
                  "--nrep-rse 0.02");
}

bool OnPath(const std::string& name) {
  const char* path = getenv("PATH");
  if (path == nullptr) return false;
  std::string dirs = path;
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

void ApplyMpi(const std::string& mpi, bool mpirun_given, bool srun_mpi_given,
              LaunchArgs* a) {
  const bool mpich = mpi == "mpich";
  a->mpich = mpich;
  // Debian's Open MPI speaks PMIx only; MPICH under srun --mpi=pmix runs
  // every process as a singleton.
  if (!srun_mpi_given) a->slurm.srun_mpi = mpich ? "pmi2" : "pmix";
  a->bench_name = mpich ? "colltune-bench-mpich" : "colltune-bench";
  if (!mpirun_given) {
    // Debian installs both under distinct names; `mpirun` is whichever the
    // alternatives system chose.
    const std::string specific = mpich ? "mpirun.mpich" : "mpirun.openmpi";
    a->mpirun = OnPath(specific) ? specific : "mpirun";
  }
}

}  // namespace

int main(int argc, char** argv) {
  using colltune::cli::Format;
  CLI::App app{"colltune: inspect and administer colltune's decision tables, "
               "and run tuning campaigns"};
  app.require_subcommand(0, 1);
  app.fallthrough();
  colltune::cli::Connection conn;
  app.add_option("--server", conn.server,
                 "colltuned address, unix:/path or host:port (default: "
                 "$COLLTUNE_SERVER, else the default socket)");
  app.add_option("--timeout-ms", conn.timeout_ms, "Deadline for the daemon")
      ->check(CLI::Range(1, 600000))
      ->capture_default_str();
  app.add_option("--admin-token-file", conn.admin_token_file,
                 "File holding the daemon's admin token, for rollback, pin and "
                 "unpin (default: $COLLTUNE_ADMIN_TOKEN_FILE)");
  // Authenticated uploads (auth/client_auth.h); passed on to colltune-bench
  // through the environment.
  std::string munge_socket, tls_ca;
  app.add_option("--munge-socket", munge_socket,
                 "munged's socket for the MUNGE credential on uploads (default: "
                 "$COLLTUNE_MUNGE_SOCKET, else libmunge's default)");
  app.add_option("--tls-ca", tls_ca,
                 "PEM file of certificates trusted for a TLS daemon on TCP "
                 "(default: $COLLTUNE_TLS_CA; unset: plaintext)");

  bool json = false;

  CLI::App* algorithms =
      app.add_subcommand("algorithms", "List every algorithm by collective");
  algorithms->add_flag("--json", json, "JSON output");
  std::string algorithms_library;
  CLI::App* quirks = app.add_subcommand(
      "quirks", "List where the libraries' own algorithms are wrong, and the evidence");
  quirks->add_flag("--json", json, "JSON output");
  std::string quirks_library;
  quirks->add_option("--library", quirks_library, "Only this library ('Open MPI', 'MPICH')");
  algorithms->add_option("--library", algorithms_library,
                         "Only this library's native algorithms ('Open MPI', 'MPICH')");

  colltune::cli::TableArgs table;
  std::string format = "text";
  CLI::App* table_cmd = app.add_subcommand(
      "table", "Print the decision table a job of this shape would get");
  table_cmd->add_option("--comm-size", table.context.comm_size, "Processes in the job")
      ->required()
      ->check(CLI::Range(1, 1 << 24));
  table_cmd->add_option("--cluster", table.context.cluster,
                        "Cluster (default: the daemon's)");
  table_cmd->add_option("--library", table.context.library,
                        "MPI library, e.g. \"Open MPI\" (default: the only one "
                        "profiled)");
  table_cmd->add_option("--library-version", table.context.library_version,
                        "MPI library version, e.g. 4.1.4");
  table_cmd->add_option("--nodes", table.context.nodes, "Nodes of the job")
      ->check(CLI::Range(0, 1 << 24));
  table_cmd->add_option("--ppn", table.context.ppn, "Processes per node")
      ->check(CLI::Range(0, 1 << 24));
  table_cmd->add_option("--placement", table.context.placement,
                        "How ranks sit on the nodes: block, round_robin or scattered")
      ->check(CLI::IsMember({"", "block", "round_robin", "scattered"}));
  table_cmd->add_option("--node-sizes", table.context.node_sizes,
                        "Processes per node where nodes differ, e.g. 3+1");
  table_cmd->add_flag("--json", json, "JSON output (same as --format=json)");
  table_cmd
      ->add_option("--format", format,
                   "text, json, or shim (the COLLTUNE_TABLE file format)")
      ->check(CLI::IsMember({"text", "json", "shim"}))
      ->capture_default_str();

  std::string cluster, library;
  CLI::App* profiles = app.add_subcommand("profiles", "List profiles");
  profiles->add_option("--cluster", cluster, "Only this cluster");
  profiles->add_option("--library", library, "Only this MPI library");
  profiles->add_flag("--json", json, "JSON output");

  int64_t profile_id = 0;
  CLI::App* profile =
      app.add_subcommand("profile", "Show a profile's measurements");
  profile->add_option("id", profile_id, "Profile id (see `colltune profiles`)")
      ->required()
      ->check(CLI::PositiveNumber);
  profile->add_flag("--json", json, "JSON output");

  auto add_profile = [&](CLI::App* cmd) {
    cmd->add_option("--profile", profile_id, "Profile id (see `colltune profiles`)")
        ->required()
        ->check(CLI::PositiveNumber);
  };

  int64_t version = 0;
  CLI::App* history = app.add_subcommand(
      "history", "List a profile's decision-table versions, or show one");
  add_profile(history);
  history->add_option("--version", version, "Show this version's rules")
      ->check(CLI::PositiveNumber);
  history->add_flag("--json", json, "JSON output");

  CLI::App* rollback = app.add_subcommand(
      "rollback", "Make an older table version current again (admin)");
  add_profile(rollback);
  rollback->add_option("--version", version, "The version to restore")
      ->required()
      ->check(CLI::PositiveNumber);

  colltune::cli::PinArgs pin;
  std::string pin_max = "inf";
  CLI::App* pin_cmd = app.add_subcommand(
      "pin", "Make the engine use an algorithm for a size range (admin)");
  add_profile(pin_cmd);
  pin_cmd->add_option("--collective", pin.collective, "e.g. allreduce")
      ->required()
      ->check([](const std::string& s) {
        return colltune::ParseCollective(s) ? std::string()
                                            : "unknown collective '" + s + "'";
      });
  pin_cmd->add_option("--algorithm", pin.algorithm,
                      "e.g. allreduce_as_reduce_bcast or default")
      ->required()
      ->check([](const std::string& s) {
        return colltune::IsAlgorithmName(s)
                   ? std::string()
                   : "unknown algorithm '" + s + "' (see colltune algorithms)";
      });
  pin_cmd->add_option("--min-bytes", pin.min_bytes, "Smallest size of the range")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  pin_cmd->add_option("--max-bytes", pin_max, "Largest size, or inf")
      ->check([](const std::string& s) {
        if (s == "inf") return std::string();
        try {
          size_t used = 0;
          long long v = std::stoll(s, &used);
          if (used == s.size() && v >= 0) return std::string();
        } catch (...) {
        }
        return "'" + s + "' is neither a size in bytes nor inf";
      })
      ->capture_default_str();
  pin_cmd->add_option("--note", pin.note, "Why (kept with the pin)");

  int64_t pin_id = 0;
  CLI::App* unpin = app.add_subcommand("unpin", "Remove a pin (admin)");
  add_profile(unpin);
  unpin->add_option("--pin", pin_id, "Pin id (see colltune pins)")
      ->required()
      ->check(CLI::PositiveNumber);

  CLI::App* pins = app.add_subcommand("pins", "List a profile's pins");
  add_profile(pins);
  pins->add_flag("--json", json, "JSON output");

  int jobs_limit = 20;
  CLI::App* jobs = app.add_subcommand(
      "jobs", "List a profile's newest job reports and the speedups they observed");
  add_profile(jobs);
  jobs->add_option("--limit", jobs_limit, "How many (newest first)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  jobs->add_flag("--json", json, "JSON output");

  CLI::App* violations = app.add_subcommand(
      "violations",
      "List the performance guidelines the profiled MPI library violates");
  add_profile(violations);
  violations->add_flag("--json", json, "JSON output");

  std::string spool_dir;
  CLI::App* flush = app.add_subcommand(
      "flush", "Send the job reports the shim spooled (after a daemon outage)");
  flush->add_option("--spool-dir", spool_dir,
                    "Spool directory (default: $COLLTUNE_SPOOL_DIR, else the "
                    "shim's default under the cache directory)");

  LaunchArgs launch;
  std::string mpi = "openmpi";
  std::string sbatch_args;
  CLI::App* campaign = app.add_subcommand(
      "campaign", "Run a tuning campaign: several launches of colltune-bench "
                  "(mpirun or Slurm jobs), uploaded to the daemon");
  AddLaunchOptions(campaign, &launch, &mpi, &sbatch_args);
  campaign->add_option("--launches", launch.launches,
                       "Launches: mpirun runs or Slurm jobs (the rank test needs at "
                       "least 3)")
      ->check(CLI::Range(1, 999))
      ->capture_default_str();
  campaign->add_option("--name", launch.name,
                       "Campaign label; the same label resumes an interrupted "
                       "campaign (default: campaign-DATE-TIME)");
  campaign->add_option("--log-dir", launch.log_dir,
                       "Keep each launch's table of medians here")
      ->check(CLI::ExistingDirectory);
  campaign->add_flag("--keep-going", launch.keep_going,
                     "Go on with the next launch when one fails");
  campaign->add_option("--whole-job", launch.whole_job,
                       "Also time the library's choices a job makes when it starts, one "
                       "more launch each (han: Open MPI's coll/han); `colltune profile` "
                       "compares them with default")
      ->check(CLI::IsMember({"han"}));

  // The engine takes nothing back on fewer held-out launches
  // (EngineOptions::min_held_out_launches).
  const auto held_out_launches = [](const std::string& text) -> std::string {
    const int n = std::atoi(text.c_str());
    return n == 0 || n >= 3 ? "" : "held-out validation needs at least 3 launches (or 0: none)";
  };
  campaign->add_option("--validate", launch.validate,
                       "Then time the table's choices against default in this many more "
                       "launches, held out from the decisions: a choice slower there in "
                       "some regime, or no faster over all of them, goes back to default "
                       "(0: none; else at least 3)")
      ->check(CLI::Range(0, 99))
      ->check(held_out_launches)
      ->capture_default_str();

  CLI::App* validate = app.add_subcommand(
      "validate", "Time the table's choices against default in launches held out from "
                  "its decisions (colltune-bench --validate); the daemon takes back a "
                  "choice that runs slower there");
  AddLaunchOptions(validate, &launch, &mpi, &sbatch_args);
  int validate_launches = 3;
  validate->add_option("--launches", validate_launches, "Held-out launches (at least 3)")
      ->check(CLI::Range(3, 99))
      ->capture_default_str();
  validate->add_option("--name", launch.name,
                       "Label of the held-out launches; the same label resumes an "
                       "interrupted validation (default: validation-DATE-TIME)");
  validate->add_option("--log-dir", launch.log_dir, "Keep each launch's table of medians here")
      ->check(CLI::ExistingDirectory);

  CLI::App* evaluate = app.add_subcommand(
      "evaluate", "Run default, every mock-up and the tuned table interleaved "
                  "in one job, and report how well the table repairs the "
                  "library");
  AddLaunchOptions(evaluate, &launch, &mpi, &sbatch_args);
  int evaluate_launches = 1;
  evaluate->add_option("--launches", evaluate_launches,
                       "Evaluation jobs; with more than one, each point's latencies "
                       "are the medians of the per-launch medians, as the campaign's "
                       "(one launch is one placement of the processes)")
      ->check(CLI::Range(1, 99))
      ->capture_default_str();
  evaluate->add_option("--log-dir", launch.log_dir,
                       "With several launches, keep each evaluation job's output and "
                       "points (every candidate's medians, common/evaluation.h) here")
      ->check(CLI::ExistingDirectory);

  colltune::cli::ExportArgs export_args;
  CLI::App* export_cmd = colltune::cli::AddExportCommand(&app, &export_args);

  if (std::optional<int> code = colltune::ParseCommandLine(app, argc, argv)) return *code;
  if (!munge_socket.empty()) setenv("COLLTUNE_MUNGE_SOCKET", munge_socket.c_str(), 1);
  if (!tls_ca.empty()) setenv("COLLTUNE_TLS_CA", tls_ca.c_str(), 1);

  if (*algorithms) return colltune::cli::Algorithms(json, algorithms_library);
  if (*quirks) return colltune::cli::Quirks(json, quirks_library);
  if (*table_cmd) {
    const std::map<std::string, Format> formats = {
        {"text", Format::kText}, {"json", Format::kJson}, {"shim", Format::kShim}};
    table.format = json ? Format::kJson : formats.at(format);
    return colltune::cli::ShowTable(conn, table);
  }
  if (*profiles) return colltune::cli::ListProfiles(conn, cluster, library, json);
  if (*profile) return colltune::cli::ShowProfile(conn, profile_id, json);
  if (*history) return colltune::cli::ShowHistory(conn, profile_id, version, json);
  if (*rollback) return colltune::cli::Rollback(conn, profile_id, version);
  if (*pin_cmd) {
    pin.profile = profile_id;
    pin.max_bytes = pin_max == "inf" ? -1 : std::stoll(pin_max);
    if (pin.max_bytes >= 0 && pin.max_bytes < pin.min_bytes) {
      std::cerr << "colltune: --max-bytes " << pin.max_bytes
                << " is below --min-bytes " << pin.min_bytes << "\n";
      return kUsageError;
    }
    return colltune::cli::AddPin(conn, pin);
  }
  if (*unpin) return colltune::cli::RemovePin(conn, profile_id, pin_id);
  if (*pins) return colltune::cli::ListPins(conn, profile_id, json);
  if (*jobs) return colltune::cli::ListJobs(conn, profile_id, jobs_limit, json);
  if (*violations) return colltune::cli::ShowViolations(conn, profile_id, json);
  if (*flush) return colltune::cli::Flush(conn, spool_dir);
  if (*export_cmd) return colltune::cli::Export(conn, export_args);
  if (*evaluate) launch.launches = evaluate_launches;
  if (*validate) launch.launches = validate_launches;
  if (*campaign || *evaluate || *validate) {
    CLI::App* cmd = *campaign ? campaign : *evaluate ? evaluate : validate;
    launch.slurm.sbatch_args = colltune::cli::Words(sbatch_args);
    ApplyMpi(mpi, !cmd->get_option("--mpirun")->empty(),
             !cmd->get_option("--srun-mpi")->empty(), &launch);
    if (launch.np == 0 && launch.layouts.empty()) {
      std::cerr << "colltune: " << cmd->get_name() << " needs --np or --layouts\n";
      return kUsageError;
    }
    return *campaign   ? colltune::cli::RunCampaign(conn, launch)
           : *validate ? colltune::cli::RunValidate(conn, launch)
                       : colltune::cli::RunEvaluate(conn, launch);
  }
  std::cerr << "colltune: a command is required\n" << app.help();
  return kUsageError;
}
