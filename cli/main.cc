// colltune: the administrator's and scripts' command line for colltuned.
// Also the shim's agent: at MPI_Init rank 0 runs `colltune table
// --format=shim ...` to fetch the decision table (shim/runtime/agent.h).
#include <iostream>
#include <map>

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace {

constexpr int kUsageError = 2;

}  // namespace

int main(int argc, char** argv) {
  using colltune::cli::Format;
  CLI::App app{"colltune: inspect and administer colltune's decision tables"};
  app.require_subcommand(0, 1);
  app.fallthrough();
  colltune::cli::Connection conn;
  app.add_option("--server", conn.server,
                 "colltuned address, unix:/path or host:port (default: "
                 "$COLLTUNE_SERVER, else the default socket)");
  app.add_option("--timeout-ms", conn.timeout_ms, "Deadline for the daemon")
      ->check(CLI::Range(1, 600000))
      ->capture_default_str();

  bool json = false;

  CLI::App* algorithms =
      app.add_subcommand("algorithms", "List every algorithm by collective");
  algorithms->add_flag("--json", json, "JSON output");

  colltune::cli::TableArgs table;
  std::string format = "text";
  CLI::App* table_cmd = app.add_subcommand(
      "table", "Print the decision table a job of this shape would get");
  table_cmd->add_option("--comm-size", table.comm_size, "Processes in the job")
      ->required()
      ->check(CLI::Range(1, 1 << 24));
  table_cmd->add_option("--cluster", table.cluster,
                        "Cluster (default: the daemon's)");
  table_cmd->add_option("--library", table.library,
                        "MPI library, e.g. \"Open MPI\" (default: the only one "
                        "profiled)");
  table_cmd->add_option("--library-version", table.library_version,
                        "MPI library version, e.g. 4.1.4");
  table_cmd->add_option("--nodes", table.nodes, "Nodes of the job")
      ->check(CLI::Range(0, 1 << 24));
  table_cmd->add_option("--ppn", table.ppn, "Processes per node")
      ->check(CLI::Range(0, 1 << 24));
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

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsageError;
  }

  if (*algorithms) return colltune::cli::Algorithms(json);
  if (*table_cmd) {
    const std::map<std::string, Format> formats = {
        {"text", Format::kText}, {"json", Format::kJson}, {"shim", Format::kShim}};
    table.format = json ? Format::kJson : formats.at(format);
    return colltune::cli::ShowTable(conn, table);
  }
  if (*profiles) return colltune::cli::ListProfiles(conn, cluster, library, json);
  if (*profile) return colltune::cli::ShowProfile(conn, profile_id, json);
  std::cerr << "colltune: a command is required\n" << app.help();
  return kUsageError;
}
