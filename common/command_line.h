// How every colltune program ends on its command line: --help prints and
// exits 0, a usage error prints CLI11's message and exits kUsageError (2), as
// the operators' guide promises for every command.
#ifndef COLLTUNE_COMMON_COMMAND_LINE_H_
#define COLLTUNE_COMMON_COMMAND_LINE_H_

#include <optional>

#include <CLI/CLI.hpp>

namespace colltune {

inline constexpr int kUsageError = 2;

// Parses argv into `app`: nullopt to go on, else the exit code. With `quiet`
// nothing is printed (the other ranks of an MPI job, rank 0 speaking for all).
inline std::optional<int> ParseCommandLine(CLI::App& app, int argc, char** argv,
                                           bool quiet = false) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    const int code = quiet ? e.get_exit_code() : app.exit(e);
    return code == 0 ? 0 : kUsageError;
  }
}

}  // namespace colltune

#endif  // COLLTUNE_COMMON_COMMAND_LINE_H_
