// The `colltune` subcommands. Each returns the process exit code: 0 done,
// 1 the daemon could not be reached or refused, 2 bad arguments (usage errors
// are caught by the parser in main.cc before a command runs).
#ifndef COLLTUNE_CLI_COMMANDS_H_
#define COLLTUNE_CLI_COMMANDS_H_

#include <cstdint>
#include <string>

namespace colltune::cli {

struct Connection {
  std::string server;  // empty: $COLLTUNE_SERVER or the default socket
  int timeout_ms = 5000;
};

enum class Format { kText, kJson, kShim };

struct TableArgs {
  std::string cluster, library, library_version;
  int comm_size = 0, nodes = 0, ppn = 0;
  Format format = Format::kText;
};

int Algorithms(bool json);
int ShowTable(const Connection& c, const TableArgs& args);
int ListProfiles(const Connection& c, const std::string& cluster,
                 const std::string& library, bool json);
int ShowProfile(const Connection& c, int64_t id, bool json);

}  // namespace colltune::cli

#endif  // COLLTUNE_CLI_COMMANDS_H_
