// The mpirun launcher, and the process helpers every launcher uses.
#include "cli/launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace colltune::cli {
namespace {

int WaitExit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::vector<char*> Argv(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  return args;
}

std::string Joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

class MpirunLauncher : public Launcher {
 public:
  explicit MpirunLauncher(std::vector<std::string> mpirun) : mpirun_(std::move(mpirun)) {}

  std::string Describe(const Job& job) const override { return Joined(Command(job)); }

  absl::Status Run(const Job& job) override {
    const std::vector<std::string> argv = Command(job);
    std::vector<char*> args = Argv(argv);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (!job.stdout_path.empty()) {
      posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, job.stdout_path.c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0644);
    }
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      return absl::NotFoundError(absl::StrCat("cannot start ", argv[0], ": ", strerror(rc)));
    }
    const int code = WaitExit(pid);
    if (code != 0) return absl::InternalError(absl::StrCat("exit ", code));
    return absl::OkStatus();
  }

  std::string SharedDir() const override {
    const char* tmp = getenv("TMPDIR");
    return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }

 private:
  std::vector<std::string> Command(const Job& job) const {
    std::vector<std::string> argv = mpirun_;
    argv.push_back("-np");
    argv.push_back(std::to_string(job.np));
    argv.insert(argv.end(), job.program.begin(), job.program.end());
    return argv;
  }

  const std::vector<std::string> mpirun_;
};

}  // namespace

std::unique_ptr<Launcher> MakeMpirunLauncher(std::vector<std::string> mpirun) {
  return std::make_unique<MpirunLauncher>(std::move(mpirun));
}

absl::StatusOr<ProcessResult> Capture(const std::vector<std::string>& argv) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    const int e = errno;
    close(out_pipe[0]);
    close(out_pipe[1]);
    return absl::InternalError(absl::StrCat("pipe: ", strerror(e)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  std::vector<char*> args = Argv(argv);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return absl::NotFoundError(absl::StrCat("cannot start ", argv[0], ": ", strerror(rc)));
  }
  ProcessResult result;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (const pollfd& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  result.exit_code = WaitExit(pid);
  return result;
}

std::string FindOnPath(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    return access(name.c_str(), X_OK) == 0 ? name : "";
  }
  const char* path = getenv("PATH");
  if (path == nullptr) return "";
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace colltune::cli
