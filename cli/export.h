// `colltune export`: the native part of a decision table written in an MPI
// library's own tuning format, so a site can run the tuned native choices
// with no shim at all (docs/native-formats.md):
//
//   ompi-rules  Open MPI's coll/tuned dynamic rules file
//   mpich-json  MPICH's collective-selection JSON (MPIR level)
//
// The table comes from the daemon (the context options of `colltune table`)
// or from a table file (--table, docs/table-format.md).
#ifndef COLLTUNE_CLI_EXPORT_H_
#define COLLTUNE_CLI_EXPORT_H_

#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace colltune::cli {

struct ExportArgs {
  std::string format;      // "ompi-rules", "mpich-json" or "han-rules"
  int64_t profile_id = 0;  // han-rules: the profile whose native:han it exports
  std::string table_file;  // empty: ask the daemon for `context`
  // The daemon's table: cluster, library (default: the format's), version,
  // nodes, ppn. comm_size 0: every section the daemon has; else only the
  // section of exactly that size (for --table too).
  JobContext context;
  std::string output;  // empty: stdout
  // ompi-rules: export algorithms that are wrong for non-commutative
  // operations too (Open MPI's rules cannot tell operations apart).
  bool assume_commutative = false;
  // ompi-rules: and those wrong for reductions of datatypes whose data does
  // not start at their origin (a derived type; its rules cannot tell types
  // apart).
  bool assume_predefined_reductions = false;
  // mpich-json: the selection tree to start from (empty: MPICH's built-in
  // tree, read from its library) and the library file to read it from and
  // check algorithm names against (empty: searched for).
  std::string mpich_base;
  std::string mpich_library;
};

// Adds the `export` subcommand and its options to `app`, filling *args.
CLI::App* AddExportCommand(CLI::App* app, ExportArgs* args);

// Runs the command: 0 written; 1 the daemon failed or the table has nothing
// the format can hold (the message says why); 2 options that do not fit.
int Export(const Connection& c, const ExportArgs& args);

}  // namespace colltune::cli

#endif  // COLLTUNE_CLI_EXPORT_H_
