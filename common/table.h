// Decision tables: what the shim applies, and their text format.
//
// The text format is the one contract for a table outside the daemon: the
// file named by COLLTUNE_TABLE, the shim's local cache, what `colltune table
// --format shim` prints, what the agent hands to the shim, and the bytes rank 0
// broadcasts at MPI_Init. docs/table-format.md describes it for people:
//
//   colltune-table 1
//   # comment
//   library <name>                (whose native algorithms the table names)
//   library_version <version>     (the version it was measured with)
//   force <collective> <algorithm>
//   reproducible                  (no exploration in jobs using this table)
//   section <comm_size|*> [profile=<id>] [version=<n>]
//   <collective> <min_bytes> <max_bytes|inf> <algorithm> [<speedup>]
//   <collective>@<layout> <min_bytes> <max_bytes|inf> <algorithm> [<speedup>]
//   <collective> <min_bytes> <max_bytes|inf> <algorithm> [<speedup>] [loop=<algorithm>]
//       [imbalance=<algorithm>]       (a regime switch, plain rules only)
//
// A regime switch names what the range runs where the shim finds a job
// calling it back to back (loop=) or after uneven work (imbalance=) instead
// of <algorithm>, which runs everywhere else (shim/runtime/regime_switch.h).
// A shim older than regime switches rejects such a table as a whole, and
// its jobs then run the library's own algorithms.
//
// A rule with @<layout> (common/layout_class.h: "struct", "tiled/8B") applies
// to calls whose data is a derived datatype of that layout, where the plain
// rules leave the default; it may only name default or the collective's
// packed form (<collective>_as_packed), which keep every rank in the same
// collective whatever layout each uses (docs/architecture.md).
//
// Parsing is strict: one bad line rejects the whole table with an error that
// names the line. Like the catalogue, this is plain C++17 for the shim.
#ifndef COLLTUNE_COMMON_TABLE_H_
#define COLLTUNE_COMMON_TABLE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/catalog.h"
#include "common/layout_class.h"

namespace colltune {

inline constexpr uint64_t kNoUpperBound = UINT64_MAX;
inline constexpr int kTableFormatVersion = 1;

// Bounds on what a table may hold; a table beyond them is rejected.
inline constexpr size_t kMaxTableTextBytes = 4 << 20;
inline constexpr size_t kMaxTableSections = 256;
inline constexpr size_t kMaxTableRules = 65536;

struct Rule {
  Collective collective = Collective::kAllgather;
  uint64_t min_bytes = 0;
  uint64_t max_bytes = kNoUpperBound;  // inclusive
  Algorithm algorithm = Algorithm::kDefault;
  double speedup = 0;  // default time / algorithm time; 0 if unknown
  LayoutKey layout;    // contiguous for the plain rules
  // The regime switch: what the range runs in a job's calls the shim finds
  // back to back (`loop`) or after uneven work (`imbalance`); unset: the
  // rule's `algorithm`. Plain rules only. The speedups are over `algorithm`
  // in that regime, as measured (0 if unknown; not in the text format).
  std::optional<Algorithm> loop, imbalance;
  double loop_speedup = 0, imbalance_speedup = 0;
  bool Switches() const { return loop.has_value() || imbalance.has_value(); }
};

struct Section {
  uint32_t comm_size = 0;  // 0 stands for '*': any communicator size
  int64_t profile_id = 0;  // 0 if the section did not come from a profile
  int64_t version = 0;
  // Sorted by (collective, min_bytes); ranges of one collective never overlap.
  std::vector<Rule> rules;
  // Rules for derived datatypes of a layout (@<layout>), sorted by
  // (collective, layout, min_bytes); ranges of one key never overlap.
  std::vector<Rule> layout_rules;
};

struct Table {
  // COLLTUNE_FORCE (or `force` lines): the algorithm for every call of the
  // collective, whatever the sections say.
  std::array<std::optional<Algorithm>, kNumCollectives> forced{};
  // Jobs using this table explore no alternatives: each call runs exactly
  // what the table says, so a job's results repeat bit for bit from run to
  // run (set by an administrator, or COLLTUNE_REPRODUCIBLE=1 per job).
  bool reproducible = false;
  // The MPI library the table was measured with ("Open MPI", "MPICH"; empty
  // for a hand-written table). Its native algorithms (native:<name>) mean
  // that library's: a job under another library never runs them.
  std::string library;
  // Its version ("4.1.4"; empty if unknown): `colltune export` refuses to
  // write a library's file from a table measured with another version.
  std::string library_version;
  std::vector<Section> sections;  // sorted by comm_size, sizes unique
  // What parsing left out without rejecting the table: rules and force lines
  // naming a native algorithm this colltune does not know (a table made for
  // another library version); those ranges run the default.
  std::vector<std::string> notes;

  bool HasForce() const;
  size_t RuleCount() const;
};

// Parses the text format into *table. On error returns false, leaves *table
// unchanged and sets *error to a message that names the bad line ("line N:")
// or, for overlapping ranges, the section.
bool ParseTable(std::string_view text, Table* table, std::string* error);

// The text form of `table`; ParseTable(FormatTable(t)) gives t back.
std::string FormatTable(const Table& table);

// The section that applies to a communicator of `comm_size` processes: the
// section of exactly that size, else the nearest size on a log scale within a
// factor of 2 (a tie goes to the smaller size), else the '*' section, else
// null. Every rank computes the same answer from the same table.
const Section* SelectSection(const Table& table, uint32_t comm_size);

// Parses a COLLTUNE_FORCE value, "allreduce=allreduce_as_reduce_bcast,
// gather=default", into *forced. Pairs that name an unknown collective, an
// unknown algorithm or an algorithm of another collective are left out, and
// each adds one message to the returned list.
std::vector<std::string> ParseForce(
    std::string_view spec,
    std::array<std::optional<Algorithm>, kNumCollectives>* forced);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_TABLE_H_
