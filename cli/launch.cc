// colltune campaign | evaluate: colltune-bench under mpirun, or as Slurm
// jobs (the Launcher of --launcher, cli/launcher.h).
//
// A campaign is several launches (separate MPI jobs) because launch-to-
// launch variance is real and the daemon's rank test works on per-launch
// medians. Each launch uploads collective by collective, and asks the daemon
// first what it already stored, so running the same command again after an
// interruption measures only what is missing.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/launcher.h"
#include "cli/layouts.h"
#include "cli/output.h"
#include "cli/rpc.h"
#include "client/client.h"
#include "common/evaluation.h"

namespace colltune::cli {
namespace {

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool Executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

// The benchmark next to this program (an installation's bin/), or in the
// build tree's bench/, else whatever PATH gives mpirun.
std::string FindBench(const std::string& requested, const std::string& name) {
  if (!requested.empty()) return requested;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    const std::string dir = Dirname(self);
    for (const std::string& candidate :
         {dir + "/" + name, dir + "/../bench/" + name}) {
      char resolved[4096];
      if (Executable(candidate) && realpath(candidate.c_str(), resolved)) {
        return resolved;
      }
    }
  }
  return name;
}

// The benchmark's command line. --expect-processes makes a job that did not
// get its processes connected (a launcher of another MPI library, srun with
// the wrong --mpi: N singletons) fail instead of measuring the wrong thing.
std::vector<std::string> BenchCommand(const Connection& c, const LaunchArgs& a,
                                      const std::string& bench) {
  std::vector<std::string> argv = {bench, "--server", client::ResolveAddress(c.server),
                                   "--expect-processes", std::to_string(a.np)};
  if (!a.cluster.empty()) {
    argv.push_back("--cluster");
    argv.push_back(a.cluster);
  }
  return argv;
}

absl::StatusOr<std::unique_ptr<Launcher>> MakeLauncher(const LaunchArgs& a) {
  if (a.launcher == "slurm") return MakeSlurmLauncher(a.slurm);
  if (a.launcher == "mpirun") return MakeMpirunLauncher(Words(a.mpirun));
  return absl::InvalidArgumentError("unknown launcher '" + a.launcher +
                                    "' (mpirun or slurm)");
}

// More processes than this machine's cores, on this machine only (no host
// list given to mpirun) and with no binding asked for: Open MPI binds
// nothing once a node is oversubscribed, so the kernel places the processes
// anew in every launch and whole launches switch between a fast and a slow
// regime (figures: the operators' guide, "Bind the processes"). A table
// measured one way also fits jobs launched that way only, so say it before
// the first launch.
void WarnIfOversubscribedUnbound(const LaunchArgs& a) {
  if (a.launcher != "mpirun") return;
  for (const std::string& w : Words(a.mpirun)) {
    if (w.find("bind") != std::string::npos || w.find("host") != std::string::npos ||
        w == "-f" || w.find("machinefile") != std::string::npos) {
      return;
    }
  }
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) != 0) return;
  const int cores = CPU_COUNT(&cpus);
  if (a.np <= cores) return;
  fprintf(stderr,
          "colltune: warning: %d processes on the %d cores here, unbound: each launch "
          "places them anew and its timings depend on the placement. Bind them as "
          "the jobs that will use the table are bound, e.g. --mpirun "
          "\"mpirun.openmpi --bind-to core:overload-allowed --map-by core\" (MPICH: "
          "\"mpirun.mpich -bind-to core\")\n",
          a.np, cores);
}

// Fails fast, before any mpirun, when the daemon cannot be reached.
absl::Status Reachable(const Connection& c) {
  v1::ListProfilesRequest request;
  request.set_cluster("-");  // matches nothing: a cheap round trip
  v1::ListProfilesResponse response;
  return Ask(c, &v1::Tuning::Stub::ListProfiles, request, &response);
}

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

// Runs `run` once per layout of a.layouts (each with its np and its
// placement), or once as given.
static int ForEachLayout(const LaunchArgs& a, const std::function<int(const LaunchArgs&)>& run) {
  if (a.layouts.empty()) return run(a);
  absl::StatusOr<std::vector<LayoutSpec>> layouts = ParseLayouts(a.layouts);
  if (!layouts.ok()) return Fail(layouts.status());
  int rc = 0;
  for (const LayoutSpec& layout : *layouts) {
    LaunchArgs one = a;
    one.layouts.clear();
    one.np = layout.np();
    if (a.launcher == "mpirun") {
      if (a.hosts.empty()) {
        return Fail(absl::InvalidArgumentError(
            "--layouts with --launcher mpirun needs --hosts (the nodes to place them on)"));
      }
      absl::StatusOr<std::vector<std::string>> place =
          MpirunPlacement(layout, a.hosts, a.mpich);
      if (!place.ok()) return Fail(place.status());
      one.mpirun += " " + absl::StrJoin(*place, " ");
    } else {
      if (!layout.regular()) {
        return Fail(absl::InvalidArgumentError(
            "--layouts " + layout.text +
            ": Slurm places the same number of tasks on every node; nodes of "
            "different sizes need --launcher mpirun with --hosts"));
      }
      one.slurm.nodes = static_cast<int>(layout.sizes.size());
      one.slurm.sbatch_args.push_back("--ntasks-per-node=" +
                                      std::to_string(layout.sizes.front()));
      if (layout.round_robin) one.slurm.srun_args.push_back("--distribution=cyclic");
    }
    fprintf(stderr, "colltune: layout %s: %d processes on %zu nodes\n", layout.text.c_str(),
            one.np, layout.sizes.size());
    rc = std::max(rc, run(one));
    if (rc != 0 && !a.keep_going) break;
  }
  return rc;
}

namespace {

// Sets an environment variable for its lifetime, then puts back what was
// there. An empty name does nothing.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const char* value) : name_(std::move(name)) {
    if (name_.empty()) return;
    if (const char* old = getenv(name_.c_str())) old_ = old;
    setenv(name_.c_str(), value, 1);
  }
  ~ScopedEnv() {
    if (name_.empty()) return;
    if (old_) {
      setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace

// `launches` held-out validation launches (colltune-bench --validate) of
// the table the daemon has for the job's context now, labelled `name`.
static int RunValidationLaunches(const Connection& c, const LaunchArgs& a, Launcher* launcher,
                                 const std::string& bench, const std::string& name,
                                 int launches) {
  fprintf(stderr,
          "colltune: held-out validation '%s': %d launches time the table's choices "
          "against default; where they run slower, the daemon takes them back\n",
          name.c_str(), launches);
  const auto start = std::chrono::steady_clock::now();
  for (int launch = 0; launch < launches; ++launch) {
    Job job;
    job.np = a.np;
    job.program = BenchCommand(c, a, bench);
    job.program.insert(job.program.end(),
                       {"--validate", "--campaign", name, "--launch", std::to_string(launch)});
    job.program.insert(job.program.end(), a.bench_args.begin(), a.bench_args.end());
    job.label = "validation " + std::to_string(launch + 1) + "/" + std::to_string(launches);
    job.name = name + "-launch-" + std::to_string(launch);
    job.stdout_path =
        a.log_dir.empty() ? std::string("/dev/null") : a.log_dir + "/" + job.name + ".txt";
    fprintf(stderr, "colltune: %s: %s\n", job.label.c_str(), launcher->Describe(job).c_str());
    const auto t = std::chrono::steady_clock::now();
    if (absl::Status s = launcher->Run(job); !s.ok()) {
      fprintf(stderr,
              "colltune: %s failed after %.1f s: %s; run colltune validate --name %s "
              "--launches %d with the same options to resume\n",
              job.label.c_str(), Since(t), std::string(s.message()).c_str(), name.c_str(),
              launches);
      return 1;
    }
    fprintf(stderr, "colltune: %s done in %.1f s\n", job.label.c_str(), Since(t));
  }
  printf("held-out validation '%s': %d launches on %d processes in %.1f s; colltune "
         "history ID shows what it took back\n",
         name.c_str(), launches, a.np, Since(start));
  return 0;
}

// `given`, else `prefix` and the UTC time: "campaign-20261129-062755".
static std::string NameOrStamped(const std::string& given, const char* prefix) {
  if (!given.empty()) return given;
  char stamp[32];
  const time_t now = time(nullptr);
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", gmtime(&now));
  return std::string(prefix) + stamp;
}

static int RunValidateOnce(const Connection& c, const LaunchArgs& a) {
  const std::string name = NameOrStamped(a.name, "validation-");
  absl::StatusOr<std::unique_ptr<Launcher>> launcher = MakeLauncher(a);
  if (!launcher.ok()) return Fail(launcher.status());
  WarnIfOversubscribedUnbound(a);
  return RunValidationLaunches(c, a, launcher->get(), FindBench(a.bench, a.bench_name), name,
                               a.launches);
}

static int RunCampaignOnce(const Connection& c, const LaunchArgs& a) {
  const std::string name = NameOrStamped(a.name, "campaign-");
  absl::StatusOr<std::unique_ptr<Launcher>> launcher = MakeLauncher(a);
  if (!launcher.ok()) return Fail(launcher.status());
  const std::string bench = FindBench(a.bench, a.bench_name);
  WarnIfOversubscribedUnbound(a);
  fprintf(stderr,
          "colltune: campaign '%s': %d launches of %s on %d processes through %s "
          "(interrupted? run again with --name %s: stored points are kept)\n",
          name.c_str(), a.launches, bench.c_str(), a.np, a.launcher.c_str(),
          name.c_str());
  const auto start = std::chrono::steady_clock::now();
  int failed = 0;
  // The launches: --launches of the library as it is, then one per
  // whole-job choice (--whole-job), numbered after them.
  struct Planned {
    std::string label;
    std::string choice;  // "" or the --whole-job name
  };
  std::vector<Planned> planned;
  for (int launch = 0; launch < a.launches; ++launch) {
    planned.push_back({"launch " + std::to_string(launch + 1) + "/" +
                           std::to_string(a.launches),
                       ""});
  }
  for (const std::string& choice : a.whole_job) {
    planned.push_back({"launch with " + choice + " enabled", choice});
  }
  for (size_t launch = 0; launch < planned.size(); ++launch) {
    const Planned& p = planned[launch];
    Job job;
    job.np = a.np;
    job.program = BenchCommand(c, a, bench);
    job.program.insert(job.program.end(),
                       {"--campaign", name, "--launch", std::to_string(launch)});
    if (!p.choice.empty()) job.program.insert(job.program.end(), {"--launched-with", p.choice});
    job.program.insert(job.program.end(), a.bench_args.begin(), a.bench_args.end());
    job.label = p.label;
    job.name = name + "-launch-" + std::to_string(launch);
    job.stdout_path =
        a.log_dir.empty() ? std::string("/dev/null") : a.log_dir + "/" + job.name + ".txt";
    // Open MPI reads its MCA variables from the environment, which mpirun
    // forwards and sbatch/srun export: the one way that reaches every
    // launcher. Set for this launch only.
    ScopedEnv han(p.choice == "han" ? "OMPI_MCA_coll_han_priority" : "", "100");
    fprintf(stderr, "colltune: %s: %s%s\n", job.label.c_str(),
            p.choice == "han" ? "OMPI_MCA_coll_han_priority=100 " : "",
            (*launcher)->Describe(job).c_str());
    const auto t = std::chrono::steady_clock::now();
    if (absl::Status s = (*launcher)->Run(job); !s.ok()) {
      ++failed;
      fprintf(stderr, "colltune: %s failed after %.1f s: %s\n", job.label.c_str(), Since(t),
              std::string(s.message()).c_str());
      if (!a.keep_going) break;
      continue;
    }
    fprintf(stderr, "colltune: %s done in %.1f s\n", job.label.c_str(), Since(t));
  }
  if (failed > 0) {
    fprintf(stderr,
            "colltune: campaign '%s' incomplete (%d launch%s failed) after "
            "%.1f s; run the same command with --name %s to resume\n",
            name.c_str(), failed, failed == 1 ? "" : "es", Since(start),
            name.c_str());
    return 1;
  }
  printf("campaign '%s': %zu launches on %d processes in %.1f s\n", name.c_str(),
         planned.size(), a.np, Since(start));
  if (a.validate > 0) {
    fflush(stdout);
    if (RunValidationLaunches(c, a, launcher->get(), bench, name + "-validation",
                              a.validate) != 0) {
      return 1;
    }
  }
  printf("next: colltune table --comm-size %d; colltune violations --profile "
         "ID (colltune profiles lists IDs)%s\n",
         a.np, a.whole_job.empty() ? "" : "; colltune profile ID compares the whole-job "
                                          "choices with default");
  return 0;
}

static int RunEvaluateOnce(const Connection& c, const LaunchArgs& a) {
  absl::StatusOr<std::unique_ptr<Launcher>> launcher = MakeLauncher(a);
  if (!launcher.ok()) return Fail(launcher.status());
  WarnIfOversubscribedUnbound(a);
  std::vector<std::string> argv = BenchCommand(c, a, FindBench(a.bench, a.bench_name));
  argv.push_back("--evaluate");
  argv.insert(argv.end(), a.bench_args.begin(), a.bench_args.end());
  Job job;
  job.np = a.np;
  job.program = argv;
  job.label = "evaluation";
  job.name = NameOrStamped("", "evaluate-");
  if (a.launches <= 1) {
    fprintf(stderr, "colltune: %s\n", (*launcher)->Describe(job).c_str());
    const absl::Status s = (*launcher)->Run(job);
    if (!s.ok()) {
      fprintf(stderr, "colltune: the evaluation failed: %s\n",
              std::string(s.message()).c_str());
    }
    return s.ok() ? 0 : 1;
  }
  // Several launches: each job writes its points (common/evaluation.h), its
  // own report goes to stderr's log line only; the combination is printed.
  // The points come back through a directory the job's nodes share.
  std::string dir_template = (*launcher)->SharedDir() + "/colltune-evaluate.XXXXXX";
  const char* dir = mkdtemp(dir_template.data());
  if (dir == nullptr) {
    fprintf(stderr, "colltune: cannot make a temporary directory: %s\n", strerror(errno));
    return 1;
  }
  std::vector<std::vector<evaluation::PointRecord>> launches;
  std::set<std::string> layouts;  // as each launch's processes found themselves
  size_t natives = 0;
  int rc = 0;
  for (int launch = 0; launch < a.launches && rc == 0; ++launch) {
    const std::string points = std::string(dir) + "/points-" + std::to_string(launch);
    const std::string log = std::string(dir) + "/launch-" + std::to_string(launch);
    Job one = job;
    one.program.insert(one.program.end(), {"--evaluate-points", points, "--launch",
                                           std::to_string(launch)});
    one.label = "evaluation " + std::to_string(launch + 1) + "/" + std::to_string(a.launches);
    one.name = job.name + "-" + std::to_string(launch);
    one.stdout_path = log;
    fprintf(stderr, "colltune: %s: %s\n", one.label.c_str(),
            (*launcher)->Describe(one).c_str());
    const auto t = std::chrono::steady_clock::now();
    if (absl::Status s = (*launcher)->Run(one); !s.ok()) {
      rc = 1;
      fprintf(stderr, "colltune: %s failed: %s; its output:\n", one.label.c_str(),
              std::string(s.message()).c_str());
      std::ifstream in(log);
      fprintf(stderr, "%s", std::string(std::istreambuf_iterator<char>(in), {}).c_str());
      break;
    }
    std::ifstream in(points);
    std::string line, error;
    std::vector<evaluation::PointRecord> records;
    while (std::getline(in, line)) {
      if (line.rfind("layout ", 0) == 0) {
        layouts.insert(line.substr(7));
        continue;
      }
      if (line.rfind("natives ", 0) == 0) {
        natives = std::max<size_t>(natives, std::stoul(line.substr(8)));
        continue;
      }
      evaluation::PointRecord r;
      if (!evaluation::ParseRecord(line, &r, &error)) {
        fprintf(stderr, "colltune: %s: %s\n", points.c_str(), error.c_str());
        rc = 1;
        break;
      }
      records.push_back(std::move(r));
    }
    launches.push_back(std::move(records));
    fprintf(stderr, "colltune: evaluation %d/%d done in %.1f s\n", launch + 1, a.launches,
            Since(t));
  }
  if (rc == 0) {
    // The engine's defaults: "slower" means what "faster" means to it.
    constexpr double kMargin = 0.10, kAlpha = 0.05;
    const evaluation::Summary s = evaluation::Summarize(launches, kMargin, kAlpha);
    const evaluation::Summary grid = evaluation::Summarize(
        launches, kMargin, kAlpha, Regime::kSync, evaluation::Grid::kDatatypes);
    printf("%-22s %9s %11s %-42s %10s %-42s %10s %8s %8s\n", "collective", "bytes",
           "default_us", "oracle", "oracle_us", "tuned", "tuned_us", "vs_def", "vs_orcl");
    std::vector<const evaluation::PointVerdict*> all;
    for (const evaluation::PointVerdict& v : s.points) all.push_back(&v);
    for (const evaluation::PointVerdict& v : grid.points) all.push_back(&v);
    for (const evaluation::PointVerdict* pv : all) {
      const evaluation::PointVerdict& v = *pv;
      printf("%-22s %9lld %11.2f %-42s %10.2f %-42s %10.2f %8.3f %8.3f\n",
             evaluation::PointName(v.collective, v.layout).c_str(),
             static_cast<long long>(v.bytes), v.t_default * 1e6,
             std::string(InfoOf(v.oracle).name).c_str(), v.t_oracle * 1e6,
             std::string(InfoOf(v.tuned).name).c_str(), v.t_tuned * 1e6,
             v.t_default / v.t_tuned, v.t_oracle / v.t_tuned);
    }
    // Launches placed differently would be a mixture, not one layout's figure.
    std::string where = absl::StrJoin(layouts, "; ");
    if (layouts.size() > 1) where = "layouts that differ between launches: " + where;
    printf("\nevaluate: %zu points, %d processes on %s, %d launches\n", s.points.size(), a.np,
           where.empty() ? "an unknown layout" : where.c_str(), a.launches);
    if (!grid.points.empty()) {
      printf("evaluate[datatypes]: %zu points of seed 003's datatype grid\n",
             grid.points.size());
    }
    const RegimeSet regimes = evaluation::RegimesIn(launches);
    for (evaluation::Grid g : {evaluation::Grid::kContiguous, evaluation::Grid::kDatatypes}) {
      if (g == evaluation::Grid::kDatatypes && grid.points.empty()) break;
      for (Regime r : kAllRegimes) {
        if (!(regimes & Bit(r))) continue;
        const evaluation::Summary in = evaluation::Summarize(launches, kMargin, kAlpha, r, g);
        evaluation::PrintSummary(in, natives, a.launches, r, g);
        evaluation::PrintSlowerThanDefault(in, a.launches, kMargin, kAlpha, r, g);
      }
    }
    evaluation::PrintRegimeTable(launches, kMargin, kAlpha);
  }
  if (!a.log_dir.empty()) {
    // Kept for analysis after the fact (scripts/whatif_table.py re-evaluates
    // another table against them); copy failures only cost that.
    std::error_code ec;
    std::filesystem::copy(dir, a.log_dir,
                          std::filesystem::copy_options::recursive |
                              std::filesystem::copy_options::overwrite_existing,
                          ec);
    if (ec) {
      fprintf(stderr, "colltune: cannot keep the points in %s: %s\n", a.log_dir.c_str(),
              ec.message().c_str());
    }
  }
  std::filesystem::remove_all(dir);
  return rc == 0 ? 0 : 1;
}

// Bad layouts are named before anything else is tried.
absl::Status CheckLayouts(const LaunchArgs& a) {
  absl::StatusOr<std::vector<LayoutSpec>> layouts = ParseLayouts(a.layouts);
  if (!layouts.ok()) return layouts.status();
  if (!a.layouts.empty() && a.launcher == "mpirun" && a.hosts.empty()) {
    return absl::InvalidArgumentError(
        "--layouts with --launcher mpirun needs --hosts (the nodes to place them on)");
  }
  return absl::OkStatus();
}

int RunCampaign(const Connection& c, const LaunchArgs& a) {
  if (!a.whole_job.empty() && a.mpich) {
    return Fail(absl::InvalidArgumentError(
        "--whole-job han is Open MPI's coll/han: not for --mpi mpich (colltune knows no "
        "whole-job choice of MPICH)"));
  }
  if (absl::Status s = CheckLayouts(a); !s.ok()) return Fail(s);
  if (absl::Status s = Reachable(c); !s.ok()) return Fail(s);
  return ForEachLayout(a, [&](const LaunchArgs& one) { return RunCampaignOnce(c, one); });
}

int RunValidate(const Connection& c, const LaunchArgs& a) {
  if (absl::Status s = CheckLayouts(a); !s.ok()) return Fail(s);
  if (absl::Status s = Reachable(c); !s.ok()) return Fail(s);
  return ForEachLayout(a, [&](const LaunchArgs& one) { return RunValidateOnce(c, one); });
}

int RunEvaluate(const Connection& c, const LaunchArgs& a) {
  if (absl::Status s = CheckLayouts(a); !s.ok()) return Fail(s);
  if (absl::Status s = Reachable(c); !s.ok()) return Fail(s);
  return ForEachLayout(a, [&](const LaunchArgs& one) { return RunEvaluateOnce(c, one); });
}

}  // namespace colltune::cli
