// The Slurm launcher (slurm_launcher.h).
//
// A job: write NAME.sh (srun of the benchmark), `sbatch --parsable` it with
// the allocation options, then every poll_seconds ask `scontrol show job -o`
// for its state (one round trip to the controller, ~10 ms; `sbatch --wait`
// looks only every ~10 s) and pass on what the job added to its output files.
// The job's end state decides the result: COMPLETED with exit 0:0 is
// success, anything else an error naming the job id and what happened.
#include "cli/slurm_launcher.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"

namespace colltune::cli {
namespace {

namespace fs = std::filesystem;

// 'word' for sh, with embedded quotes closed and reopened.
std::string ShellQuote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string Joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) {
    s.pop_back();
  }
  return s;
}

// A command's messages on one line (sbatch writes one error per line).
std::string OneLine(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = Trimmed(line);
    if (!line.empty()) out += (out.empty() ? "" : " / ") + line;
  }
  return out;
}

std::string DefaultJobDir() {
  const char* cache = getenv("XDG_CACHE_HOME");
  if (cache != nullptr && *cache == '/') return std::string(cache) + "/colltune/slurm";
  const char* home = getenv("HOME");
  if (home != nullptr && *home == '/') return std::string(home) + "/.cache/colltune/slurm";
  return "/tmp/colltune-slurm-" + std::to_string(getuid());
}

// Passes on what a growing file gained since the last look.
class Tail {
 public:
  Tail(std::string path, FILE* sink) : path_(std::move(path)), sink_(sink) {}
  void Pump() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) return;
    in.seekg(static_cast<std::streamoff>(offset_));
    char buffer[8192];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
      const size_t n = static_cast<size_t>(in.gcount());
      fwrite(buffer, 1, n, sink_);
      offset_ += n;
    }
    fflush(sink_);
  }

 private:
  const std::string path_;
  FILE* const sink_;
  size_t offset_ = 0;
};

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

class SlurmLauncher : public Launcher {
 public:
  SlurmLauncher(SlurmOptions options, std::string sbatch, std::string scontrol)
      : o_(std::move(options)), sbatch_(std::move(sbatch)), scontrol_(std::move(scontrol)) {}

  std::string Describe(const Job& job) const override {
    return Joined(SbatchCommand(job, ScriptPath(job))) + "  # " + Joined(SrunCommand(job));
  }

  std::string SharedDir() const override { return o_.job_dir; }

  absl::Status Run(const Job& job) override {
    const std::string script = ScriptPath(job);
    if (absl::Status s = WriteScript(job, script); !s.ok()) return s;
    absl::StatusOr<ProcessResult> submitted = Capture(SbatchCommand(job, script));
    if (!submitted.ok()) return submitted.status();
    if (submitted->exit_code != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("sbatch refused the job (exit ", submitted->exit_code,
                       "): ", OneLine(submitted->err + submitted->out)));
    }
    // --parsable prints "ID" or "ID;CLUSTER".
    std::string id = Trimmed(submitted->out);
    id = id.substr(0, id.find(';'));
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
      return absl::InternalError(
          absl::StrCat("sbatch gave no job id: '", Trimmed(submitted->out), "'"));
    }
    fprintf(stderr, "colltune: %s: Slurm job %s submitted (scancel %s stops it; "
            "script %s)\n", job.label.c_str(), id.c_str(), id.c_str(), script.c_str());
    return Follow(job, id);
  }

 private:
  std::string ScriptPath(const Job& job) const { return o_.job_dir + "/" + job.name + ".sh"; }
  // sbatch replaces %j with the job id.
  std::string OutputPattern(const Job& job, const std::string& ext) const {
    return o_.job_dir + "/" + job.name + "-%j." + ext;
  }

  std::vector<std::string> SrunCommand(const Job& job) const {
    std::vector<std::string> argv = {"srun", "--mpi=" + o_.srun_mpi,
                                     "--ntasks=" + std::to_string(job.np),
                                     "--kill-on-bad-exit=1"};
    argv.insert(argv.end(), o_.srun_args.begin(), o_.srun_args.end());
    argv.insert(argv.end(), job.program.begin(), job.program.end());
    return argv;
  }

  std::vector<std::string> SbatchCommand(const Job& job, const std::string& script) const {
    std::vector<std::string> argv = {sbatch_, "--parsable", "--job-name=colltune-" + job.name,
                                     "--ntasks=" + std::to_string(job.np)};
    if (o_.nodes > 0) argv.push_back("--nodes=" + std::to_string(o_.nodes));
    if (!o_.partition.empty()) argv.push_back("--partition=" + o_.partition);
    if (!o_.time_limit.empty()) argv.push_back("--time=" + o_.time_limit);
    if (!o_.account.empty()) argv.push_back("--account=" + o_.account);
    const std::string out = job.stdout_path.empty()
                                ? OutputPattern(job, "out")
                                : fs::absolute(job.stdout_path).string();
    argv.push_back("--output=" + out);
    argv.push_back("--error=" + OutputPattern(job, "err"));
    argv.insert(argv.end(), o_.sbatch_args.begin(), o_.sbatch_args.end());
    argv.push_back(script);
    return argv;
  }

  absl::Status WriteScript(const Job& job, const std::string& path) const {
    std::ofstream out(path, std::ios::trunc);
    // srun can exit 0 although it started no task ("task 0 launch failed",
    // seen when a step's PMIx directory was in the way): task 0 leaves a
    // mark before it becomes the program, and no mark is a failure.
    const std::string mark =
        ShellQuote(o_.job_dir + "/" + job.name + "-") + "\"$SLURM_JOB_ID\".started";
    out << "#!/bin/sh\n"
        << "# colltune " << job.name << " (" << job.label
        << "): one MPI job of the benchmark, written by colltune --launcher slurm\n"
        << "mark=" << mark << "\n"
        << "rm -f \"$mark\"\n";
    std::vector<std::string> srun = SrunCommand(job);
    const size_t program = srun.size() - job.program.size();
    for (size_t i = 0; i < srun.size(); ++i) {
      if (i == program) {
        out << " /bin/sh -c '[ \"$SLURM_PROCID\" != 0 ] || : >\"$0\"; exec \"$@\"' \"$mark\"";
      }
      out << (i == 0 ? "" : " ") << ShellQuote(srun[i]);
    }
    out << "\n"
        << "rc=$?\n"
        << "if [ \"$rc\" -eq 0 ] && [ ! -e \"$mark\" ]; then\n"
        << "  echo \"colltune: srun exited 0 but started no task of the job (srun's "
           "messages above say why)\" >&2\n"
        << "  rc=97\n"
        << "fi\n"
        << "rm -f \"$mark\"\n"
        << "exit \"$rc\"\n";
    out.close();
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
    return absl::OkStatus();
  }

  absl::Status Follow(const Job& job, const std::string& id) {
    const auto start = std::chrono::steady_clock::now();
    auto file = [&](const std::string& ext) {
      std::string p = OutputPattern(job, ext);
      return p.replace(p.find("%j"), 2, id);
    };
    Tail err(file("err"), stderr);
    Tail out(file("out"), stdout);
    const bool tail_out = job.stdout_path.empty();
    std::string shown;  // the last state printed
    SlurmJobState state;
    int errors = 0;
    const int max_errors = std::max(20, static_cast<int>(60 / o_.poll_seconds));
    for (;;) {
      absl::StatusOr<ProcessResult> r = Capture({scontrol_, "show", "job", "-o", id});
      if (!r.ok()) return r.status();
      if (r->exit_code != 0) {
        const std::string why = OneLine(r->err + r->out);
        if (why.find("Invalid job id") != std::string::npos) {
          return absl::UnknownError(absl::StrCat(
              "Slurm job ", id, " is no longer known to the controller (last state ",
              state.state.empty() ? "unknown" : state.state,
              "; finished jobs are forgotten after MinJobAge): its outcome is unknown"));
        }
        // The controller may be busy or restarting: keep trying a while.
        if (++errors > max_errors) {
          return absl::UnavailableError(
              absl::StrCat("cannot follow Slurm job ", id, ": scontrol: ", why));
        }
      } else {
        errors = 0;
        state = ParseScontrolJob(r->out);
      }
      err.Pump();
      if (tail_out) out.Pump();
      if (!state.state.empty() && state.state != shown) {
        shown = state.state;
        std::string detail;
        if (state.state == "PENDING" && !state.reason.empty() && state.reason != "None") {
          detail = " (" + state.reason + ")";
        } else if (state.state == "RUNNING" && !state.nodes.empty()) {
          detail = " on " + state.nodes;
        }
        fprintf(stderr, "colltune: %s: Slurm job %s %s%s\n", job.label.c_str(), id.c_str(),
                state.state.c_str(), detail.c_str());
      }
      if (SlurmStateIsFinal(state.state)) break;
      std::this_thread::sleep_for(std::chrono::duration<double>(o_.poll_seconds));
    }
    err.Pump();
    if (tail_out) out.Pump();
    return Verdict(id, state, Since(start));
  }

  absl::Status Verdict(const std::string& id, const SlurmJobState& s, double seconds) const {
    const std::string after = absl::StrCat(" (after ", static_cast<int>(seconds + 0.5), " s)");
    const std::string job = "Slurm job " + id;
    if (s.state == "COMPLETED" && (s.exit_code.empty() || s.exit_code == "0:0")) {
      return absl::OkStatus();
    }
    if (s.state == "COMPLETED" || s.state == "FAILED") {
      return absl::InternalError(absl::StrCat(job, " failed: exit code ", s.exit_code,
                                              " (exit:signal), reason ", s.reason, after,
                                              "; its stderr is above"));
    }
    if (s.state == "CANCELLED") {
      return absl::AbortedError(
          absl::StrCat(job, " was cancelled (scancel, or an administrator)", after));
    }
    if (s.state == "TIMEOUT" || s.state == "DEADLINE") {
      return absl::DeadlineExceededError(absl::StrCat(
          job, " reached its time limit (TimeLimit=", s.time_limit, "; --time sets it)", after));
    }
    if (s.state == "NODE_FAIL" || s.state == "BOOT_FAIL") {
      return absl::UnavailableError(absl::StrCat(
          job, " ended by a node failure (", s.state, ", nodes ", s.nodes, ")", after));
    }
    if (s.state == "OUT_OF_MEMORY") {
      return absl::ResourceExhaustedError(absl::StrCat(job, " ran out of memory", after));
    }
    if (s.state == "PREEMPTED") {
      return absl::AbortedError(absl::StrCat(job, " was preempted", after));
    }
    return absl::UnknownError(
        absl::StrCat(job, " ended in state ", s.state, ", reason ", s.reason, after));
  }

  const SlurmOptions o_;
  const std::string sbatch_, scontrol_;
};

}  // namespace

SlurmJobState ParseScontrolJob(const std::string& line) {
  std::map<std::string, std::string> fields;
  std::istringstream in(line);
  for (std::string word; in >> word;) {
    const size_t eq = word.find('=');
    if (eq != std::string::npos) fields.emplace(word.substr(0, eq), word.substr(eq + 1));
  }
  SlurmJobState s;
  s.state = fields["JobState"];
  s.reason = fields["Reason"];
  s.exit_code = fields["ExitCode"];
  s.nodes = fields["NodeList"];
  s.time_limit = fields["TimeLimit"];
  return s;
}

bool SlurmStateIsFinal(const std::string& state) {
  for (const char* f : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                        "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "PREEMPTED"}) {
    if (state == f) return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<Launcher>> MakeSlurmLauncher(SlurmOptions o) {
  std::string found[2];
  const char* needed[2] = {"sbatch", "scontrol"};
  for (int i = 0; i < 2; ++i) {
    found[i] = FindOnPath(needed[i]);
    if (found[i].empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--launcher slurm needs ", needed[i],
          " on PATH, and it is not there: run colltune where Slurm's commands are "
          "installed (a login node), or add their directory to PATH"));
    }
  }
  if (o.job_dir.empty()) o.job_dir = DefaultJobDir();
  std::error_code ec;
  fs::create_directories(o.job_dir, ec);
  if (ec || access(o.job_dir.c_str(), W_OK) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot use ", o.job_dir, " for the batch scripts and job output: ",
                     ec ? ec.message() : "not writable"));
  }
  o.job_dir = fs::absolute(o.job_dir).lexically_normal().string();
  if (!o.job_dir.empty() && o.job_dir.size() > 1 && o.job_dir.back() == '/') {
    o.job_dir.pop_back();
  }
  return std::unique_ptr<Launcher>(
      std::make_unique<SlurmLauncher>(std::move(o), found[0], found[1]));
}

}  // namespace colltune::cli
