// Talking to the daemon without gRPC in the job.
//
// The shim never links gRPC: a gRPC client inside every MPI process would
// bring background threads, fork hazards and protobuf/abseil symbols into
// other people's programs. Instead rank 0 runs the `colltune` program (the
// agent) with posix_spawn, reads its standard output through a pipe, and
// kills it at the deadline. The agent runs without LD_PRELOAD, so it never
// loads the shim itself.
#ifndef COLLTUNE_SHIM_RUNTIME_AGENT_H_
#define COLLTUNE_SHIM_RUNTIME_AGENT_H_

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace colltune::shim {

struct AgentResult {
  bool ok = false;      // exited with status 0 within the deadline
  std::string output;   // its standard output
  std::string error;    // why not ok
};

// The agent to run: `configured` (COLLTUNE_AGENT) if set, else `colltune`
// next to the shim library or in ../bin from it; empty if none exists.
std::string FindAgent(const std::string& configured);

// Starts `program` with `args`, stdin from /dev/null, stdout to `stdout_fd`
// (-1: /dev/null), stderr to ours when `pass_stderr` (else /dev/null), and
// the environment minus LD_PRELOAD. Returns its pid, or -1 with *error set.
pid_t StartAgent(const std::string& program, const std::vector<std::string>& args,
                 int stdout_fd, bool pass_stderr, std::string* error);

// Runs `program` with `args` and returns within about `timeout_ms`. Output
// beyond `max_output` bytes is an error. The agent's stderr goes to ours when
// `pass_stderr`, else to /dev/null.
AgentResult RunAgent(const std::string& program,
                     const std::vector<std::string>& args, int timeout_ms,
                     size_t max_output, bool pass_stderr);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_AGENT_H_
