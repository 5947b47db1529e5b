#include "shim/runtime/agent.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace colltune::shim {
namespace {

bool IsExecutable(const std::string& path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 &&
         S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

int64_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// The environment minus LD_PRELOAD: the agent is no MPI program.
std::vector<char*> AgentEnvironment() {
  std::vector<char*> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (strncmp(*e, "LD_PRELOAD=", 11) == 0) continue;
    env.push_back(*e);
  }
  env.push_back(nullptr);
  return env;
}

void Reap(pid_t pid, int* status) {
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

std::string FindAgent(const std::string& configured) {
  if (!configured.empty()) return configured;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&FindAgent), &info) == 0 ||
      info.dli_fname == nullptr) {
    return "";
  }
  std::string lib = info.dli_fname;
  size_t slash = lib.rfind('/');
  std::string dir = slash == std::string::npos ? "." : lib.substr(0, slash);
  // Next to the library, PREFIX/lib -> PREFIX/bin (scripts/install.sh), the
  // build tree (shim/ -> cli/), and the Debian package's private directory
  // /usr/lib/colltune -> /usr/bin.
  for (const std::string& candidate :
       {dir + "/colltune", dir + "/../bin/colltune", dir + "/../cli/colltune",
        dir + "/../../bin/colltune"}) {
    if (IsExecutable(candidate)) return candidate;
  }
  return "";
}

pid_t StartAgent(const std::string& program, const std::vector<std::string>& args,
                 int stdout_fd, bool pass_stderr, std::string* error) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (stdout_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  }
  if (!pass_stderr) {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> env = AgentEnvironment();
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(),
                             env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    *error = "cannot start " + program + ": " + strerror(rc);
    return -1;
  }
  return pid;
}

AgentResult RunAgent(const std::string& program,
                     const std::vector<std::string>& args, int timeout_ms,
                     size_t max_output, bool pass_stderr) {
  AgentResult result;
  const int64_t deadline = NowMs() + timeout_ms;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + strerror(errno);
    return result;
  }
  const pid_t pid = StartAgent(program, args, fds[1], pass_stderr, &result.error);
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return result;
  }

  bool timed_out = false;
  bool too_large = false;
  char buf[65536];
  for (;;) {
    const int64_t left = deadline - NowMs();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    int n = poll(&pfd, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {
      timed_out = true;
      break;
    }
    if (n < 0) {
      result.error = std::string("poll: ") + strerror(errno);
      break;
    }
    ssize_t got = read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // end of output (or a read error)
    if (result.output.size() + got > max_output) {
      too_large = true;
      break;
    }
    result.output.append(buf, got);
  }
  close(fds[0]);

  int status = 0;
  if (timed_out || too_large || !result.error.empty()) {
    kill(pid, SIGKILL);
    Reap(pid, &status);
    if (timed_out) {
      result.error = "no answer within " + std::to_string(timeout_ms) + " ms";
    } else if (too_large) {
      result.error = "answer larger than " + std::to_string(max_output) +
                     " bytes";
    }
    result.output.clear();
    return result;
  }
  // The output is complete; wait for the exit, still within the deadline.
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      // An application that ignores SIGCHLD has the kernel reap the agent;
      // the output is complete and the parser judges it.
      result.ok = true;
      return result;
    }
    if (NowMs() >= deadline) {
      kill(pid, SIGKILL);
      Reap(pid, &status);
      result.error = "agent did not exit within " +
                     std::to_string(timeout_ms) + " ms";
      result.output.clear();
      return result;
    }
    usleep(1000);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    result.ok = true;
  } else if (WIFEXITED(status)) {
    result.error = program + " exited with status " +
                   std::to_string(WEXITSTATUS(status));
  } else {
    result.error = program + " was killed by signal " +
                   std::to_string(WTERMSIG(status));
  }
  if (!result.ok) result.output.clear();
  return result;
}

}  // namespace colltune::shim
