// colltune export: a table's native choices in a library's own tuning file
// (export.h; the formats and every conversion: docs/native-formats.md).
//
// Both formats select by communicator size, then by a message size of the
// library's own definition. The export keeps colltune's semantics exactly
// where the library can express them:
//
//  * Communicator sizes. The shim applies a section to communicators within
//    a factor of 2 of its size (SelectSection). The export computes which
//    section serves which communicator sizes and writes one entry per span,
//    and entries for the spans no section serves that leave the choice to
//    the library; so a choice measured on 4 processes never reaches 64.
//  * Message sizes. colltune's key (shim/coll/calls.h) is converted to the
//    library's measure, per collective (kFileNames). Where the library
//    multiplies by the communicator size, a span holding several sizes is
//    written per size, so every boundary stays where colltune put it.
//  * Everything that is not a native choice of this library (default,
//    mock-ups, gaps) is left to the library: Open MPI's algorithm 0 (its
//    fixed decision) or MPICH's own built-in tree.
#include "cli/export.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <tuple>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/output.h"
#include "cli/rpc.h"
#include "cli/tuning_file/coverage.h"
#include "cli/tuning_file/han_rules.h"
#include "cli/tuning_file/mpich_json.h"
#include "cli/tuning_file/ompi_rules.h"
#include "cli/tuning_file/vocabulary.h"
#include "cli/whole_job.h"
#include "client/client.h"
#include "common/catalog.h"
#include "common/command_line.h"
#include "common/layout.h"
#include "common/limits.h"
#include "common/quirks.h"
#include "common/regime.h"
#include "common/table.h"
#include "proto/context.h"

namespace colltune::cli {
namespace {

using tuning_file::AskMpich;
using tuning_file::AskOpenMpi;
using tuning_file::Coverage;
using tuning_file::FileNames;
using tuning_file::HasNative;
using tuning_file::InstalledLibrary;
using tuning_file::Isolate;
using tuning_file::Json;
using tuning_file::kFileNames;
using tuning_file::MpichBase;
using tuning_file::MpichJson;
using tuning_file::Notes;
using tuning_file::NumberingMismatches;
using tuning_file::OmpiRules;
using tuning_file::ReadFile;
using tuning_file::Row;
using tuning_file::Rows;
using tuning_file::Span;
using tuning_file::Target;


// The table.

absl::StatusOr<Table> TableFromFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  Table table;
  std::string error;
  if (!ParseTable(*text, &table, &error)) {
    return absl::InvalidArgumentError(path + ": " + error);
  }
  return table;
}

absl::StatusOr<Table> TableFromDaemon(const Connection& c, const ExportArgs& args,
                                      const Target& t, std::string* source) {
  v1::GetTableRequest request;
  JobContext context = args.context;
  if (context.library.empty()) context.library = std::string(t.library_name);
  // Without a size: the jobs of the layout given, else a job as large as
  // allowed, which gets every measured size.
  if (context.comm_size <= 0 && context.nodes > 0 && context.ppn > 0 &&
      context.node_sizes.empty()) {
    context.comm_size = context.nodes * context.ppn;
  }
  if (context.comm_size <= 0 && context.nodes > 0) {
    return absl::InvalidArgumentError(
        "--nodes with --node-sizes (or without --ppn) needs --comm-size: the jobs' "
        "number of processes");
  }
  if (context.comm_size <= 0) context.comm_size = limits::kMaxCommSize;
  *request.mutable_context() = ContextToProto(context);
  v1::GetTableResponse response;
  absl::Status status = Ask(c, &v1::Tuning::Stub::GetTable, request, &response);
  if (!status.ok()) return status;
  std::vector<std::string> warnings;
  absl::StatusOr<Table> table = client::TableFromProto(response.table(), &warnings);
  for (const std::string& w : warnings) std::cerr << "colltune: " << w << "\n";
  const v1::Context& served = response.table().context();
  *source = "colltuned at " + client::ResolveAddress(c.server) + ", cluster '" +
            served.cluster() + "', " + served.library() + " " + served.library_version();
  // The rules are one layout's (daemon/matching.h); a file used on another
  // would apply them silently, so the file says which.
  const JobContext layout = ContextFromProto(served);
  if (layout.nodes > 0) {
    *source += ", jobs on " + std::to_string(layout.nodes) +
               (layout.nodes == 1 ? " node (" : " nodes (") + LayoutText(layout) + ")";
  } else {
    *source += ", no layout given (--nodes, --ppn: each section is its profile's "
               "layout, see `colltune profiles`)";
  }
  return table;
}

absl::Status WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text << std::flush;
    return std::cout.good() ? absl::OkStatus()
                            : absl::DataLossError("cannot write stdout");
  }
  // Written whole or not at all: a job never reads half a rules file.
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      return absl::DataLossError("cannot write " + tmp);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::DataLossError("cannot rename " + tmp + " to " + path);
  }
  return absl::OkStatus();
}

std::string SizesOf(const Table& table) {
  std::string out;
  for (const Section& s : table.sections) {
    if (!out.empty()) out += ", ";
    out += s.comm_size == 0 ? std::string("*") : std::to_string(s.comm_size);
  }
  return out.empty() ? std::string("none") : out;
}

int Usage(const std::string& message) {
  std::cerr << "colltune: " << message << "\n";
  return kUsageError;
}

}  // namespace

CLI::App* AddExportCommand(CLI::App* app, ExportArgs* a) {
  CLI::App* cmd = app->add_subcommand(
      "export",
      "Write a table's native choices in the MPI library's own tuning format, for jobs "
      "without the shim");
  cmd->add_option("--format", a->format,
                  "ompi-rules (Open MPI's coll/tuned dynamic rules file) or mpich-json "
                  "(MPICH's collective-selection JSON) or han-rules (Open MPI coll/han's "
                  "dynamic rules, from a profile's native:han: --profile)")
      ->required()
      ->check(CLI::IsMember({"ompi-rules", "mpich-json", "han-rules"}));
  cmd->add_option("--profile", a->profile_id,
                  "han-rules: the profile (colltune profiles) whose coll/han timings decide")
      ->check(CLI::PositiveNumber);
  CLI::Option* table =
      cmd->add_option("--table", a->table_file,
                      "A table file (docs/table-format.md) instead of the daemon's table")
          ->check(CLI::ExistingFile);
  cmd->add_option("--comm-size", a->context.comm_size,
                  "Only the table's section for this many processes (default: every "
                  "section)")
      ->check(CLI::Range(1, limits::kMaxCommSize));
  cmd->add_option("--cluster", a->context.cluster, "Cluster (default: the daemon's)")
      ->excludes(table);
  cmd->add_option("--library", a->context.library,
                  "MPI library as profiled (default: \"Open MPI\" for ompi-rules, "
                  "\"MPICH\" for mpich-json)")
      ->excludes(table);
  cmd->add_option("--library-version", a->context.library_version,
                  "MPI library version, e.g. 4.1.4")
      ->excludes(table);
  cmd->add_option("--nodes", a->context.nodes, "Nodes of the jobs")
      ->check(CLI::Range(0, limits::kMaxCommSize))
      ->excludes(table);
  cmd->add_option("--ppn", a->context.ppn, "Processes per node of the jobs")
      ->check(CLI::Range(0, limits::kMaxCommSize))
      ->excludes(table);
  cmd->add_option("--placement", a->context.placement,
                  "How the jobs' ranks sit on the nodes: block, round_robin or scattered")
      ->check(CLI::IsMember({"", "block", "round_robin", "scattered"}))
      ->excludes(table);
  cmd->add_option("--node-sizes", a->context.node_sizes,
                  "Processes per node where the jobs' nodes differ, e.g. 3+1")
      ->excludes(table);
  cmd->add_option("-o,--output", a->output, "Write to this file (default: stdout)");
  cmd->add_flag("--assume-commutative", a->assume_commutative,
                "ompi-rules: also export the allreduce and reduce algorithms that are "
                "wrong for non-commutative operations (Open MPI's rules cannot tell them "
                "apart); for sites whose jobs reduce with commutative operations only");
  cmd->add_flag("--assume-predefined-reductions", a->assume_predefined_reductions,
                "ompi-rules: also export the allreduce algorithms that are wrong for "
                "reductions of derived datatypes whose data does not start at their "
                "origin (Open MPI's rules cannot tell datatypes apart); for sites whose "
                "jobs reduce predefined datatypes only");
  cmd->add_option("--mpich-base", a->mpich_base,
                  "mpich-json: the selection tree to start from (default: MPICH's "
                  "built-in tree, read from its library)")
      ->check(CLI::ExistingFile);
  cmd->add_option(
         "--mpich-library", a->mpich_library,
         "mpich-json: MPICH's library, for its built-in tree and algorithm names "
         "(default: libmpich.so.12 on the library path)")
      ->check(CLI::ExistingFile);
  return cmd;
}

// han-rules: from a profile's timings of native:han against default
// (campaign --whole-job han), where coll/han runs when a job enables it.
static int ExportHanRules(const Connection& c, const ExportArgs& args) {
  if (args.profile_id <= 0) {
    return Usage("--format han-rules needs --profile ID (a profile with native:han: "
                 "colltune campaign --whole-job han)");
  }
  v1::GetProfileRequest request;
  request.set_id(args.profile_id);
  v1::GetProfileResponse response;
  absl::Status status = Ask(c, &v1::Tuning::Stub::GetProfile, request, &response);
  if (!status.ok()) return Fail(status);
  const v1::Context& context = response.profile().context();
  if (context.library() != "Open MPI") {
    return Fail(absl::FailedPreconditionError(
        "profile " + std::to_string(args.profile_id) + " is " + context.library() +
        "'s: han-rules are for Open MPI's coll/han"));
  }
  std::vector<tuning_file::HanPoint> points;
  for (const WholeJobPoint& p : WholeJobPoints(response)) {
    if (p.algorithm == "native:han" && p.problem.empty()) {
      points.push_back({p.collective, p.bytes, p.regime, p.default_seconds, p.choice_seconds});
    }
  }
  if (points.empty()) {
    return Fail(absl::NotFoundError(
        "profile " + std::to_string(args.profile_id) +
        " has no timings of native:han next to default: run colltune campaign "
        "--whole-job han on this layout first"));
  }
  const InstalledLibrary installed = AskOpenMpi();
  if (installed.version.empty() || installed.version != context.library_version()) {
    return Fail(absl::FailedPreconditionError(
        "the profile was measured with Open MPI " + context.library_version() +
        ", the library here is " + (installed.version.empty() ? "unknown" : installed.version) +
        ": nothing written (export where the jobs' library is)"));
  }
  // coll/han's MPI_Gather is wrong where ranks are not placed node by node
  // (shim/runtime/repairs.h): the file sends gather to coll/tuned.
  const bool gather_defect = HanGatherDefect(context.library_version());
  const std::vector<tuning_file::HanChoice> choices = tuning_file::ChooseHan(points, 0.05);
  std::string header =
      "# Open MPI coll/han dynamic rules, written by `colltune export --format han-rules`.\n"
      "# Source: profile " + std::to_string(args.profile_id) + " (" + context.library() + " " +
      context.library_version() + ", " + std::to_string(context.comm_size()) +
      " processes on " + std::to_string(context.nodes()) + " nodes, " +
      LayoutText(ContextFromProto(context)) + ")\n"
      "# han runs a collective at the sizes where it was faster than default by 5 % in "
      "every\n# regime measured (synchronized, back to back, after uneven work); "
      "coll/tuned elsewhere.\n";
  if (gather_defect) {
    header += "# gather: coll/tuned at every size (this version's han gather is wrong "
              "where ranks\n# are not placed node by node: open-mpi/ompi issue 11664).\n";
  }
  header +=
      "# allreduce, allgather, allgatherv and scatter: left to coll/han at every size "
      "(4.1.4\n# crashes when its rules send allreduce to coll/tuned; han measures the "
      "others'\n# sizes otherwise than colltune).\n";
  header +=
      "# Use: mpirun --mca coll_han_priority 100 --mca coll_han_use_dynamic_file_rules 1 "
      "\\\n#        --mca coll_han_dynamic_rules_filename THIS_FILE ...\n";
  const std::string text = tuning_file::HanRules(choices, gather_defect, header);
  if (absl::Status s = WriteOutput(args.output, text); !s.ok()) return Fail(s);
  if (!args.output.empty()) {
    int han_ranges = 0;
    for (const tuning_file::HanChoice& ch : choices) {
      for (const auto& r : ch.ranges) han_ranges += r.second ? 1 : 0;
    }
    std::cerr << "colltune: wrote " << args.output << " (han-rules): " << choices.size()
              << " collectives, coll/han in " << han_ranges << " size range"
              << (han_ranges == 1 ? "" : "s") << "\n";
  }
  return 0;
}

int Export(const Connection& c, const ExportArgs& args) {
  if (args.format == "han-rules") return ExportHanRules(c, args);
  if (args.profile_id > 0) return Usage("--profile is for --format han-rules");
  const bool mpich = args.format == "mpich-json";
  if (!mpich && (!args.mpich_base.empty() || !args.mpich_library.empty())) {
    return Usage("--mpich-base and --mpich-library are for --format mpich-json");
  }
  if (mpich && args.assume_commutative) {
    return Usage(
        "--assume-commutative is for --format ompi-rules (MPICH's file checks "
        "commutativity itself)");
  }
  if (mpich && args.assume_predefined_reductions) {
    return Usage("--assume-predefined-reductions is for --format ompi-rules");
  }
  Target t{mpich ? kMpich : kOpenMpi, mpich ? "MPICH" : "Open MPI", args.format, mpich,
           args.assume_commutative, args.assume_predefined_reductions};

  std::string source;
  absl::StatusOr<Table> table;
  if (!args.table_file.empty()) {
    source = "table file " + args.table_file;
    table = TableFromFile(args.table_file);
  } else {
    table = TableFromDaemon(c, args, t, &source);
  }
  if (!table.ok()) return Fail(table.status());

  if (NativeLibraryOf(table->library) != t.library) {
    return Fail(absl::FailedPreconditionError(
        (table->library.empty()
             ? std::string("the table names no MPI library (no 'library' "
                           "line)")
             : "the table is for " + table->library) +
        ": " + args.format + " holds choices for " + std::string(t.library_name) +
        " tables only"));
  }

  if (table->sections.empty() && !table->HasForce()) {
    return Fail(absl::NotFoundError(
        args.table_file.empty() ? "colltuned has no profile for this context (" + source +
                                      "; see colltune profiles): nothing to export"
                                : "the table has no sections: nothing to export"));
  }

  std::vector<Span> spans = Coverage(*table);
  const Section* only = nullptr;
  if (args.context.comm_size > 0) {
    for (const Section& s : table->sections) {
      if (s.comm_size == static_cast<uint32_t>(args.context.comm_size)) only = &s;
    }
    if (only == nullptr) {
      return Fail(absl::NotFoundError(
          "the table has no section for " + std::to_string(args.context.comm_size) +
          " processes; its sections are for: " + SizesOf(*table)));
    }
    // The other sections' sizes are left to the library.
    for (Span& span : spans) {
      if (span.section != only) span.section = nullptr;
    }
  }
  if (!mpich) spans = Isolate(spans, 2);

  // The file is for the library installed here: its version must be the
  // table's, and (Open MPI) its algorithm numbers colltune's.
  const InstalledLibrary installed = mpich ? AskMpich() : AskOpenMpi();
  const std::string table_version =
      !table->library_version.empty() ? table->library_version : args.context.library_version;
  if (installed.version.empty()) {
    return Fail(absl::FailedPreconditionError(
        std::string("cannot tell the version of the ") + std::string(t.library_name) +
        " installed here (" + (mpich ? "mpichversion" : "ompi_info") +
        "): export on a node with the jobs' MPI library"));
  }
  if (!table_version.empty() && table_version != installed.version) {
    return Fail(absl::FailedPreconditionError(
        "the table was measured with " + std::string(t.library_name) + " " + table_version +
        ", the library here is " + installed.version +
        ": its algorithms, numbers and defects may differ; nothing written (export where "
        "the jobs' library is, or run a campaign with this one)"));
  }
  if (!mpich) {
    if (!installed.listed) {
      return Fail(absl::FailedPreconditionError(
          "cannot read Open MPI's algorithm numbers (ompi_info --param coll tuned --level "
          "9): nothing written"));
    }
    const std::vector<std::string> wrong = NumberingMismatches(installed);
    if (!wrong.empty()) {
      std::string why;
      for (const std::string& w : wrong) why += "\n  " + w;
      return Fail(absl::FailedPreconditionError(
          "Open MPI " + installed.version +
          " numbers its algorithms otherwise than colltune's rules writer knows; a file "
          "would force other algorithms than the table's, nothing written:" + why));
    }
  }
  t.library_version = installed.version;

  Notes notes;
  for (const std::string& n : table->notes) notes.Add(n);
  std::string library_bytes;
  Json base;
  if (mpich) {
    absl::StatusOr<Json> tree =
        MpichBase(args.mpich_library, args.mpich_base, &library_bytes, &notes);
    if (!tree.ok()) return Fail(tree.status());
    base = std::move(*tree);
    t.mpich_library = &library_bytes;
  }

  std::vector<std::pair<Collective, std::vector<Row>>> colls;
  bool any_native = false;
  for (const FileNames& f : kFileNames) {
    const Collective coll = f.collective;
    for (const Span& span : spans) {
      if (span.section == nullptr) continue;
      for (const Rule& r : span.section->rules) {
        any_native |= r.collective == coll && IsNative(r.algorithm);
      }
    }
    if (table->forced[IndexOf(coll)])
      any_native |= IsNative(*table->forced[IndexOf(coll)]);
    if (!mpich && f.ompi_algorithms.empty()) continue;
    std::vector<Row> rows = Rows(t, *table, spans, coll, &notes);
    if (HasNative(rows)) colls.emplace_back(coll, std::move(rows));
  }
  if (colls.empty()) {
    std::string message =
        any_native ? "none of the table's native choices can be written in " + args.format
                   : "the table has no native choice for " + std::string(t.library_name) +
                         " (its rules name only default and colltune's mock-ups, which "
                         "only the shim runs): nothing to export";
    for (const std::string& n : notes.all()) message += "\n  " + n;
    return Fail(absl::FailedPreconditionError(message));
  }

  std::string text;
  if (mpich) {
    absl::StatusOr<std::string> json = MpichJson(std::move(base), colls, &notes);
    if (!json.ok()) return Fail(json.status());
    text = std::move(*json);
  } else {
    std::string header =
        "# Open MPI coll/tuned dynamic rules, written by `colltune export --format "
        "ompi-rules`.\n# Source: " +
        source + "\n# Table sections (communicator sizes):";
    const char* separator = " ";
    for (const Section& s : table->sections) {
      if (only != nullptr && &s != only) continue;
      header +=
          separator + (s.comm_size == 0 ? std::string("*") : std::to_string(s.comm_size));
      separator = ", ";
      if (s.profile_id > 0 || s.version > 0) {
        header += " (profile " + std::to_string(s.profile_id) + ", version " +
                  std::to_string(s.version) + ")";
      }
    }
    header +=
        "\n# Use: mpirun --mca coll_tuned_use_dynamic_rules 1 "
        "--mca coll_tuned_dynamic_rules_filename THIS_FILE ...\n"
        "# Per collective: its id, how many communicator sizes; per size: the smallest "
        "it\n# serves, how many message sizes; per message size: the smallest (Open "
        "MPI's\n# measure, bytes), the algorithm (0: Open MPI's fixed decision), "
        "fan-in/out,\n# segment size.\n";
    for (const std::string& n : notes.all()) header += "# Not exported: " + n + "\n";
    text = OmpiRules(colls, header + "\n");
  }
  for (const std::string& n : notes.all()) std::cerr << "colltune: note: " << n << "\n";
  if (absl::Status s = WriteOutput(args.output, text); !s.ok()) return Fail(s);
  if (!args.output.empty()) {
    std::string which;
    for (const auto& [coll, rows] : colls) {
      which += (which.empty() ? "" : ", ") + std::string(InfoOf(coll).name);
    }
    std::cerr << "colltune: wrote " << args.output << " (" << args.format
              << "): native choices for " << which << "\n";
  }
  return 0;
}

}  // namespace colltune::cli
