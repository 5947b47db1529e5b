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

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/output.h"
#include "cli/rpc.h"
#include "client/client.h"
#include "common/catalog.h"
#include "common/limits.h"
#include "common/quirks.h"
#include "common/table.h"

namespace colltune::cli {
namespace {

// MPICH takes the first sibling whose condition holds, so key order is
// meaning: the tree is read, changed and written in order.
using Json = nlohmann::ordered_json;

constexpr int kUsageError = 2;

// ---------------------------------------------------------------------------
// What the libraries' tuning files call things: the one place that maps
// colltune's native algorithms (common/catalog.cc) and its message-size key
// to each file's vocabulary. Facts: docs/library-controls.md (Open MPI
// 4.1.4, MPICH 4.0.2), docs/native-formats.md.

// How a library's file measures a call, given colltune's message-size key
// (per-process block for allgather, alltoall, gather, scatter,
// reduce_scatter_block; the whole vector for allreduce, bcast, reduce, scan).
enum class Measure {
  kKey,           // the same bytes
  kKeyTimesSize,  // the key times the communicator size
  kOther,         // not determined by the key: a choice must hold for all sizes
};

struct FileNames {
  Collective collective;
  // Open MPI coll/tuned: the collective's id in the rules file and its
  // coll_tuned_<collective>_algorithm enumeration, in order: a rule's
  // algorithm number is the name's 1-based position ("" : no algorithms).
  int ompi_id;
  std::string_view ompi_algorithms;
  Measure ompi_measure;
  // MPICH: leaves are "algorithm=MPIR_<mpich_coll>_intra_<name>", or
  // "..._allcomm_<name>" for the names in mpich_allcomm (those that serve
  // inter-communicators too); mpich_condition is the selection key that
  // measures the call as mpich_measure says ("" if none does).
  std::string_view mpich_coll;
  std::string_view mpich_allcomm;
  std::string_view mpich_condition;
  Measure mpich_measure;
};

// In Collective order. Open MPI measures gather and scatter by the send
// arguments on every rank, a scan and an exscan by type size x communicator
// size (no count), an allgatherv by the total divided by the communicator
// size (with the send type's size), barrier and alltoallv not at all; its
// reduce_scatter measures colltune's key, the total. MPICH 4.0.2's total_msg_size of gather and scatter counts
// elements, not bytes, and scan has no message-size condition at all.
constexpr FileNames kFileNames[] = {
    {Collective::kAllgather, 0, "linear bruck recursive_doubling ring neighbor two_proc",
     Measure::kKeyTimesSize, "Allgather", "nb", "total_msg_size",
     Measure::kKeyTimesSize},
    {Collective::kAllgatherv, 1, "default bruck ring neighbor two_proc", Measure::kOther,
     "Allgatherv", "nb", "total_msg_size", Measure::kKey},
    {Collective::kAllreduce, 2,
     "basic_linear nonoverlapping recursive_doubling ring segmented_ring rabenseifner",
     Measure::kKey, "Allreduce", "nb", "avg_msg_size",
     Measure::kKey},
    {Collective::kAlltoall, 3, "linear pairwise modified_bruck linear_sync two_proc",
     Measure::kKeyTimesSize, "Alltoall", "nb", "avg_msg_size", Measure::kKey},
    {Collective::kAlltoallv, 4, "basic_linear pairwise", Measure::kOther, "Alltoallv", "nb",
     "", Measure::kOther},
    {Collective::kAlltoallw, 5, "", Measure::kOther, "Alltoallw", "nb", "", Measure::kOther},
    {Collective::kBarrier, 6, "linear double_ring recursive_doubling bruck two_proc tree",
     Measure::kOther, "Barrier", "nb", "", Measure::kOther},
    {Collective::kBcast, 7,
     "basic_linear chain pipeline split_binary_tree binary_tree binomial knomial "
     "scatter_allgather scatter_allgather_ring",
     Measure::kKey, "Bcast", "nb", "avg_msg_size", Measure::kKey},
    {Collective::kExscan, 8, "linear recursive_doubling", Measure::kOther, "Exscan", "nb", "",
     Measure::kOther},
    {Collective::kGather, 9, "basic_linear binomial linear_sync", Measure::kKeyTimesSize,
     "Gather", "nb", "", Measure::kOther},
    {Collective::kGatherv, 10, "", Measure::kOther, "Gatherv", "linear nb", "",
     Measure::kOther},
    {Collective::kReduce, 11,
     "linear chain pipeline binary binomial in-order_binary rabenseifner", Measure::kKey,
     "Reduce", "nb", "avg_msg_size", Measure::kKey},
    {Collective::kReduceScatter, 12, "non-overlapping recursive_halving ring butterfly",
     Measure::kKey, "Reduce_scatter", "nb", "total_msg_size", Measure::kKey},
    {Collective::kReduceScatterBlock, 13,
     "basic_linear recursive_doubling recursive_halving butterfly",
     Measure::kKeyTimesSize, "Reduce_scatter_block", "nb", "total_msg_size",
     Measure::kKeyTimesSize},
    {Collective::kScan, 14, "linear recursive_doubling", Measure::kOther, "Scan",
     "nb", "", Measure::kOther},
    {Collective::kScatter, 15, "basic_linear binomial linear_nb", Measure::kKeyTimesSize,
     "Scatter", "nb", "", Measure::kOther},
    {Collective::kScatterv, 16, "", Measure::kOther, "Scatterv", "linear nb", "",
     Measure::kOther},
};
static_assert(std::size(kFileNames) == kNumCollectives);

// Open MPI's rule fields after the algorithm: fan-in/out and segment size.
// These are coll/tuned's defaults for a forced algorithm
// (coll_tuned_<coll>_algorithm_{tree,chain}_fanout = 4, _segmentsize = 0)
// but for the catalogue's segmented variants, so a rule runs what the
// shim's forcing runs.
std::string OmpiFanoutSegsize(std::optional<Algorithm> a) {
  return "4 " + std::to_string(a ? InfoOf(*a).segment : 0);
}

// MPICH 4.0.2's restrictions on its algorithms (src/mpi/coll/coll_algorithms.txt).
// Its algorithm variables check them and fall back to the automatic choice;
// a selection file runs a leaf unchecked (bcast smp on a communicator without
// a node hierarchy fails an assertion), so each leaf is guarded by the
// conditions that express them. Scan has no commutativity condition in
// 4.0.2; MPICH's own tree runs scan smp on any operation too.
struct MpichRestriction {
  Collective collective;
  std::string_view name;
  std::string_view restrictions;
};
constexpr MpichRestriction kMpichRestrictions[] = {
    {Collective::kAllgather, "recursive_doubling", "power-of-two"},
    {Collective::kAllgatherv, "recursive_doubling", "power-of-two"},
    {Collective::kAllreduce, "smp", "commutative parent-comm"},
    {Collective::kAllreduce, "reduce_scatter_allgather", "size-ge-pof2 builtin-op"},
    {Collective::kAlltoall, "brucks", "noinplace"},
    {Collective::kAlltoall, "pairwise", "noinplace"},
    {Collective::kAlltoall, "pairwise_sendrecv_replace", "inplace"},
    {Collective::kAlltoall, "scattered", "noinplace"},
    {Collective::kAlltoallv, "pairwise_sendrecv_replace", "inplace"},
    {Collective::kAlltoallv, "scattered", "noinplace"},
    {Collective::kAlltoallw, "pairwise_sendrecv_replace", "inplace"},
    {Collective::kAlltoallw, "scattered", "noinplace"},
    {Collective::kBarrier, "smp", "parent-comm"},
    {Collective::kBcast, "smp", "parent-comm"},
    {Collective::kReduce, "smp", "commutative parent-comm"},
    {Collective::kReduce, "reduce_scatter_gather", "size-ge-pof2 builtin-op"},
    {Collective::kReduceScatter, "noncommutative", "power-of-two block-regular"},
    {Collective::kReduceScatter, "pairwise", "commutative"},
    {Collective::kReduceScatter, "recursive_halving", "commutative"},
    {Collective::kReduceScatterBlock, "noncommutative", "power-of-two"},
    {Collective::kReduceScatterBlock, "pairwise", "commutative"},
    {Collective::kReduceScatterBlock, "recursive_halving", "commutative"},
    {Collective::kScan, "smp", "node-consecutive"},
};

// MPICH algorithms a selection file must not name at all: what breaks them
// is nothing its conditions can test (the shim steers around it per call,
// shim/coll/quirks.h).
// The space-separated words of `list`.
std::vector<std::string_view> Words(std::string_view list) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < list.size()) {
    size_t end = list.find(' ', pos);
    if (end == std::string_view::npos) end = list.size();
    out.push_back(list.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

bool HasWord(std::string_view list, std::string_view word, int* position = nullptr) {
  const std::vector<std::string_view> words = Words(list);
  const auto it = std::find(words.begin(), words.end(), word);
  if (it == words.end()) return false;
  if (position) *position = static_cast<int>(it - words.begin()) + 1;
  return true;
}

// Open MPI's algorithm number of native algorithm `a`, 0 if it has none.
int OmpiNumber(Collective c, Algorithm a) {
  int n = 0;
  return HasWord(kFileNames[IndexOf(c)].ompi_algorithms, InfoOf(a).library_name(), &n)
             ? n
             : 0;
}

// What the MPI library installed here says of itself: its version and, for
// Open MPI, the values of every coll_tuned_<collective>_algorithm
// enumeration (ompi_info), which a rules file's algorithm numbers are.
struct InstalledLibrary {
  std::string version;  // "" if it could not be asked
  bool listed = false;  // Open MPI: the enumerations were read
  std::map<std::pair<int, std::string>, int> values;  // (collective, name) -> value
};

std::string Output(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0 && out.size() < (16u << 20)) out.append(buf, n);
  pclose(p);
  return out;
}

InstalledLibrary AskOpenMpi() {
  InstalledLibrary lib;
  std::istringstream version(Output("ompi_info --parsable"));
  for (std::string line; std::getline(version, line);) {
    if (line.rfind("ompi:version:full:", 0) == 0) lib.version = line.substr(18);
  }
  // mca:coll:tuned:param:coll_tuned_<coll>_algorithm:enumerator:value:<n>:<name>
  std::istringstream params(Output("ompi_info --parsable --param coll tuned --level 9"));
  const std::string prefix = "mca:coll:tuned:param:coll_tuned_";
  for (std::string line; std::getline(params, line);) {
    const size_t at = line.find("_algorithm:enumerator:value:");
    if (line.rfind(prefix, 0) != 0 || at == std::string::npos) continue;
    const std::optional<Collective> c =
        ParseCollective(line.substr(prefix.size(), at - prefix.size()));
    const std::string rest = line.substr(at + 28);
    const size_t colon = rest.find(':');
    if (!c || colon == std::string::npos) continue;
    lib.values[{IndexOf(*c), rest.substr(colon + 1)}] = atoi(rest.substr(0, colon).c_str());
    lib.listed = true;
  }
  return lib;
}

InstalledLibrary AskMpich() {
  InstalledLibrary lib;
  std::istringstream out(Output("mpichversion"));
  for (std::string line; std::getline(out, line);) {
    if (line.rfind("MPICH Version:", 0) != 0) continue;
    const size_t v = line.find_first_not_of(" \t", 14);
    if (v != std::string::npos) lib.version = line.substr(v);
  }
  return lib;
}

// Where colltune's numbering of Open MPI's algorithms (kFileNames, made for
// 4.1.4) differs from the installed library's, one line each; empty if it
// agrees for every collective.
std::vector<std::string> NumberingMismatches(const InstalledLibrary& lib) {
  std::vector<std::string> out;
  for (const FileNames& f : kFileNames) {
    const std::vector<std::string_view> words = Words(f.ompi_algorithms);
    for (size_t i = 0; i < words.size(); ++i) {
      const std::string name(words[i]);
      const int n = static_cast<int>(i) + 1;
      const auto it = lib.values.find({IndexOf(f.collective), name});
      if (it == lib.values.end()) {
        out.push_back(std::string(InfoOf(f.collective).name) + " " + name +
                      ": not in the installed library's enumeration");
      } else if (it->second != n) {
        out.push_back(std::string(InfoOf(f.collective).name) + " " + name + ": number " +
                      std::to_string(it->second) + " here, " + std::to_string(n) +
                      " in colltune's numbering");
      }
    }
  }
  return out;
}

std::string MpichLeaf(Collective c, Algorithm a) {
  const FileNames& f = kFileNames[IndexOf(c)];
  const std::string_view name = InfoOf(a).library_name();
  return "MPIR_" + std::string(f.mpich_coll) +
         (HasWord(f.mpich_allcomm, name) ? "_allcomm_" : "_intra_") + std::string(name);
}

// ---------------------------------------------------------------------------
// The conversion, shared by both formats.

// What the export could not carry over, told once each.
class Notes {
 public:
  void Add(std::string note) {
    for (const std::string& n : notes_) {
      if (n == note) return;
    }
    notes_.push_back(std::move(note));
  }
  const std::vector<std::string>& all() const { return notes_; }

 private:
  std::vector<std::string> notes_;
};

struct Target {
  uint8_t library;                // kOpenMpi or kMpich
  std::string_view library_name;  // as LibraryId names it
  std::string_view format;
  bool mpich;
  // ompi-rules: also the algorithms that are wrong for non-commutative
  // operations (the site's jobs use commutative ones only).
  bool assume_commutative = false;
  // Bytes of the MPICH library whose names the leaves must be (empty: not
  // checked); MPICH aborts at MPI_Init on a name it does not know.
  const std::string* mpich_library = nullptr;
  // The library version the file is for ("": every version's defects count).
  std::string library_version;

  Measure MeasureOf(Collective c) const {
    return mpich ? kFileNames[IndexOf(c)].mpich_measure
                 : kFileNames[IndexOf(c)].ompi_measure;
  }
  // Why the file cannot run native algorithm `a` of `c` for communicators of
  // lo..hi processes as the shim would; "" if it can.
  std::string Why(Collective c, Algorithm a, uint32_t lo, uint32_t hi) const {
    if (!(InfoOf(a).libraries & library)) {
      return std::string(library_name) + " has no such algorithm";
    }
    // The library's own defects (common/quirks.h): a file applies to every
    // form of a call, so an algorithm wrong in any form stays out, except
    // for non-commutative operations where the site says it has none.
    for (const Quirk* q = QuirksBegin(); q != QuirksEnd(); ++q) {
      const uint8_t forms = assume_commutative ? q->forms & ~kFormNonCommutative : q->forms;
      if (forms == 0 || !QuirkHolds(*q, a, library, library_version)) continue;
      std::string why = std::string(library_name) + " " + std::string(q->seen_in) +
                        "'s own is wrong for some calls (" + QuirkFormNames(q->forms) +
                        "), which its file cannot tell apart";
      if (q->forms == kFormNonCommutative && !mpich) why += " (--assume-commutative exports it)";
      return why;
    }
    if (mpich) {
      if (mpich_library == nullptr || mpich_library->empty()) return "";
      const std::string needle = std::string(1, '\0') + MpichLeaf(c, a) + '\0';
      return mpich_library->find(needle) != std::string::npos
                 ? ""
                 : "the MPICH library found has no " + MpichLeaf(c, a);
    }
    if (OmpiNumber(c, a) == 0) return "Open MPI " + library_version + " has no such algorithm";
    // Limits the catalogue knows and the shim keeps too.
    const AlgorithmInfo& info = InfoOf(a);
    if (info.only_size != 0 && !(lo == info.only_size && hi == info.only_size)) {
      return "it runs on " + std::to_string(info.only_size) + " processes only";
    }
    return "";
  }
};

constexpr uint32_t kOpen = UINT32_MAX;  // a span of communicator sizes with no end

// Communicator sizes [lo, hi] served by one table section (null: none).
struct Span {
  uint32_t lo;
  uint32_t hi;
  const Section* section;
};

// Which section serves which communicator sizes, exactly as SelectSection
// decides. SelectSection changes its answer only where a section enters or
// leaves the factor-of-2 window (s/2, 2s+1) or where the nearest of two
// neighbouring sizes changes (their geometric mean), so it is asked at
// those points, with a margin for rounding, and is constant in between.
std::vector<Span> Coverage(const Table& table) {
  std::vector<uint64_t> at = {1};
  auto near = [&](uint64_t x) {
    for (uint64_t d = 0; d <= 4; ++d) {
      if (x + d >= 2) at.push_back(x + d - 2);
    }
  };
  std::vector<uint64_t> sizes;
  for (const Section& s : table.sections) {
    if (s.comm_size > 0) sizes.push_back(s.comm_size);
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    near(sizes[i] / 2);
    near(sizes[i] / 2 + 1);
    near(2 * sizes[i] + 1);
    if (i + 1 < sizes.size()) {
      near(
          static_cast<uint64_t>(std::sqrt(static_cast<double>(sizes[i]) * sizes[i + 1])));
    }
  }
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  std::vector<Span> spans;
  for (uint64_t p : at) {
    if (p < 1 || p >= kOpen) continue;
    const Section* s = SelectSection(table, static_cast<uint32_t>(p));
    if (!spans.empty() && spans.back().section == s) continue;
    if (!spans.empty()) spans.back().hi = static_cast<uint32_t>(p - 1);
    spans.push_back({static_cast<uint32_t>(p), kOpen, s});
  }
  return spans;
}

// `spans` with size p in a span of its own (Open MPI's two_proc algorithms
// run on 2 processes only).
std::vector<Span> Isolate(const std::vector<Span>& spans, uint32_t p) {
  std::vector<Span> out;
  for (const Span& s : spans) {
    if (s.lo <= p && p <= s.hi) {
      if (s.lo < p) out.push_back({s.lo, p - 1, s.section});
      out.push_back({p, p, s.section});
      if (p < s.hi) out.push_back({p + 1, s.hi, s.section});
    } else {
      out.push_back(s);
    }
  }
  return out;
}

// A range of message sizes and its choice (nullopt: the library decides).
struct Piece {
  uint64_t min = 0;
  uint64_t max = kNoUpperBound;  // inclusive
  std::optional<Algorithm> native;

  bool operator==(const Piece& o) const {
    return min == o.min && max == o.max && native == o.native;
  }
};

std::string SectionName(const Section* s) {
  if (s == nullptr) return "no section";
  return s->comm_size == 0 ? "section *" : "section " + std::to_string(s->comm_size);
}

// "3-5 processes", "9+ processes", "1 process".
std::string SizesText(uint32_t lo, uint32_t hi) {
  if (hi == kOpen) return std::to_string(lo) + "+ processes";
  if (lo == hi) return std::to_string(lo) + (lo == 1 ? " process" : " processes");
  return std::to_string(lo) + "-" + std::to_string(hi) + " processes";
}

std::string SectionsText(const std::vector<const Section*>& sections) {
  std::string out;
  for (const Section* s : sections) {
    if (!out.empty()) out += ", ";
    out += SectionName(s);
  }
  return out;
}

// A section's choices for `c` over all of colltune's key, gaps and
// non-native choices left to the library, equal neighbours merged.
std::vector<Piece> KeyPieces(const Target& t, const Table& table, const Span& span,
                             Collective c, Notes* notes) {
  const Section* s = span.section;
  auto exportable = [&](Algorithm a) -> std::optional<Algorithm> {
    if (!IsNative(a)) return std::nullopt;
    if (std::string why = t.Why(c, a, span.lo, span.hi); !why.empty()) {
      notes->Add(std::string(InfoOf(c).name) + " " + std::string(InfoOf(a).name) + ": " +
                 why + "; left to the library there");
      return std::nullopt;
    }
    return a;
  };
  std::vector<Piece> out;
  auto add = [&](uint64_t lo, uint64_t hi, std::optional<Algorithm> a) {
    if (!out.empty() && out.back().native == a) {
      out.back().max = hi;
    } else {
      out.push_back({lo, hi, a});
    }
  };
  if (const auto& forced = table.forced[IndexOf(c)]) {
    add(0, kNoUpperBound, exportable(*forced));
    return out;
  }
  uint64_t next = 0;
  bool covered = false;
  if (s != nullptr) {
    for (const Rule& r : s->rules) {
      if (r.collective != c) continue;
      if (r.min_bytes > next) add(next, r.min_bytes - 1, std::nullopt);
      add(r.min_bytes, r.max_bytes, exportable(r.algorithm));
      if (r.max_bytes == kNoUpperBound) {
        covered = true;
        break;
      }
      next = r.max_bytes + 1;
    }
  }
  if (!covered) add(next, kNoUpperBound, std::nullopt);
  // Collectives keyed on no size: the choice at 0 is the choice.
  if (InfoOf(c).key == SizeKey::kNone) return {{0, kNoUpperBound, out.front().native}};
  return out;
}

uint64_t Times(uint64_t x, uint64_t p) {
  return x > kNoUpperBound / p ? kNoUpperBound : x * p;
}

// Pieces in a measure that is the key times `p`: the block sizes [a, b]
// are the products [a*p, (b+1)*p - 1], so the ranges still tile all sizes.
std::vector<Piece> Scaled(std::vector<Piece> pieces, uint64_t p) {
  for (Piece& piece : pieces) {
    piece.min = Times(piece.min, p);
    if (piece.max != kNoUpperBound) piece.max = Times(piece.max + 1, p) - 1;
  }
  return pieces;
}

// One communicator-size entry of a collective: sizes [lo, hi], and the
// message-size ranges in the library's own measure.
struct Row {
  uint32_t lo;
  uint32_t hi;
  std::vector<const Section*> sections;  // where its choices come from
  std::vector<Piece> pieces;
};

bool HasNative(const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    for (const Piece& p : r.pieces) {
      if (p.native) return true;
    }
  }
  return false;
}

// A span wider than this that needs one entry per size (a section of
// thousands of processes) is written once, scaled by the section's own
// size: the boundaries then move for the other sizes it serves.
constexpr uint32_t kMaxSizesPerSpan = 1024;

std::vector<Row> Rows(const Target& t, const Table& table, const std::vector<Span>& spans,
                      Collective c, Notes* notes) {
  const std::string coll(InfoOf(c).name);
  const std::vector<Piece> library_only = {Piece{}};
  std::vector<Row> rows;
  auto push = [&](uint32_t lo, uint32_t hi, const Section* s, std::vector<Piece> pieces) {
    if (!rows.empty() && rows.back().pieces == pieces) {
      Row& last = rows.back();
      last.hi = hi;
      if (last.sections.back() != s) last.sections.push_back(s);
      return;
    }
    rows.push_back({lo, hi, {s}, std::move(pieces)});
  };
  for (const Span& span : spans) {
    std::vector<Piece> key = KeyPieces(t, table, span, c, notes);
    if (key.size() == 1) {  // one choice for every size: no measure matters
      push(span.lo, span.hi, span.section, std::move(key));
      continue;
    }
    switch (t.MeasureOf(c)) {
      case Measure::kKey:
        push(span.lo, span.hi, span.section, std::move(key));
        break;
      case Measure::kOther:
        notes->Add(SectionName(span.section) + ": " + coll +
                   "'s choice changes with the message size, and " +
                   std::string(t.format) + " cannot select " + coll +
                   " by colltune's message size (docs/native-formats.md); left to the "
                   "library");
        push(span.lo, span.hi, span.section, library_only);
        break;
      case Measure::kKeyTimesSize:
        if (span.hi == kOpen) {
          notes->Add(SectionName(span.section) + ": " + coll +
                     "'s message sizes scale with the communicator size, which a section "
                     "for any size does not fix; left to the library");
          push(span.lo, span.hi, span.section, library_only);
        } else if (span.hi - span.lo >= kMaxSizesPerSpan &&
                   span.section->comm_size == 0) {
          notes->Add(SectionName(span.section) + ": " + coll + " for " +
                     SizesText(span.lo, span.hi) +
                     ": too many sizes to write one by one; left to the library");
          push(span.lo, span.hi, span.section, library_only);
        } else if (span.hi - span.lo >= kMaxSizesPerSpan) {
          notes->Add(SectionName(span.section) + ": " + coll +
                     " boundaries are exact for " +
                     std::to_string(span.section->comm_size) +
                     " processes only (scaled by that size for all " +
                     std::to_string(span.lo) + "-" + std::to_string(span.hi) + ")");
          push(span.lo, span.hi, span.section, Scaled(key, span.section->comm_size));
        } else {
          for (uint32_t p = span.lo; p <= span.hi; ++p) {
            push(p, p, span.section, Scaled(key, p));
          }
        }
        break;
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------
// Open MPI: coll/tuned's dynamic rules file (format 1, read with "%li", so
// '#' comments anywhere).

std::string OmpiRules(const std::vector<std::pair<Collective, std::vector<Row>>>& colls,
                      const std::string& header) {
  std::ostringstream out;
  out << header;
  out << colls.size() << "  # collectives\n";
  for (const auto& [c, rows] : colls) {
    out << "\n" << kFileNames[IndexOf(c)].ompi_id << "  # " << InfoOf(c).name << "\n";
    out << rows.size() << "  # communicator sizes\n";
    for (const Row& row : rows) {
      // Open MPI reads sizes as signed longs: a range starting beyond is
      // never reached by a real call and is left out.
      std::vector<const Piece*> pieces;
      for (const Piece& p : row.pieces) {
        if (p.min <= static_cast<uint64_t>(LONG_MAX)) pieces.push_back(&p);
      }
      out << row.lo << " " << pieces.size() << "  # communicators of "
          << SizesText(row.lo, row.hi) << ": " << SectionsText(row.sections) << "\n";
      for (const Piece* p : pieces) {
        out << "  " << p->min << " " << (p->native ? OmpiNumber(c, *p->native) : 0) << " "
            << OmpiFanoutSegsize(p->native) << "  # "
            << (p->native ? InfoOf(*p->native).name : "Open MPI's fixed decision")
            << "\n";
      }
    }
  }
  return out.str();
}

// ---------------------------------------------------------------------------
// MPICH: the collective-selection JSON of MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE.
// The file replaces MPICH's built-in tree: a collective missing from it fails
// an assertion on its first call (a file holding allreduce alone aborts in
// MPI_Barrier), and 4.0.2 has no leaf meaning "decide as usual"
// (MPIR_<Coll>_allcomm_auto searches the tree, it is not a leaf). A minimal
// file would have to name an algorithm for all 44 collectives and change
// MPICH's choices everywhere colltune kept the default. So the export is the
// built-in tree (read from the library, BuiltinTree) with the tuned
// collectives' intra-communicator branches replaced: communicator-size
// conditions, then message-size conditions, whose leaves are the native
// algorithms behind their restrictions, or MPICH's own branch where colltune
// keeps the default.

// MPICH 4.0.2 prunes the tree per communicator with "comm_size<N" read as
// '<', but its per-call search reads it as '<=': a built-in branch moved
// below a message-size condition is searched per call, so its strict
// conditions are rewritten to the equivalent "comm_size<=N-1".
Json Normalized(const Json& tree) {
  if (!tree.is_object()) return tree;
  Json out = Json::object();
  constexpr std::string_view kLess = "comm_size<";
  for (const auto& [key, value] : tree.items()) {
    std::string k = key;
    if (k.compare(0, kLess.size(), kLess) == 0 && k.size() > kLess.size() &&
        k[kLess.size()] != '=') {
      k = "comm_size<=" + std::to_string(std::atol(k.c_str() + kLess.size()) - 1);
    }
    out[k] = Normalized(value);
  }
  return out;
}

// Two siblings: `cond` and its complement, which must come last.
Json Either(const std::string& cond, Json yes, const std::string& otherwise, Json no) {
  Json node = Json::object();
  node[cond] = std::move(yes);
  node[otherwise] = std::move(no);
  return node;
}

// The leaf of native algorithm `a`, behind the conditions that express its
// restrictions; where they fail, MPICH's own choice (`builtin`), as its
// algorithm variable would fall back.
Json Guarded(Collective c, Algorithm a, const Json& builtin) {
  Json node = Json{{"algorithm=" + MpichLeaf(c, a), Json::object()}};
  std::string_view restrictions;
  for (const MpichRestriction& r : kMpichRestrictions) {
    if (r.collective == c && r.name == InfoOf(a).library_name())
      restrictions = r.restrictions;
  }
  std::stringstream in{std::string(restrictions)};
  std::string r;
  while (in >> r) {
    if (r == "parent-comm") {
      node = Either("comm_hierarchy=parent", node, "comm_hierarchy=any", builtin);
    } else if (r == "power-of-two") {
      node = Either("comm_size=pow2", node, "comm_size=any", builtin);
    } else if (r == "commutative") {
      node = Either("is_commutative=yes", node, "is_commutative=no", builtin);
    } else if (r == "builtin-op") {
      node = Either("is_op_built_in=yes", node, "is_op_built_in=no", builtin);
    } else if (r == "size-ge-pof2") {  // count >= the largest power of 2 <= comm size
      node = Either("count<pow2", builtin, "count=any", node);
    } else if (r == "inplace") {
      node = Either("is_sendbuf_inplace=yes", node, "is_sendbuf_inplace=no", builtin);
    } else if (r == "noinplace") {
      node = Either("is_sendbuf_inplace=no", node, "is_sendbuf_inplace=yes", builtin);
    } else if (r == "block-regular") {  // every block the same count
      node = Either("is_block_regular=yes", node, "is_block_regular=no", builtin);
    } else if (r == "node-consecutive") {
      node = Either("is_node_consecutive=yes", node, "is_node_consecutive=no", builtin);
    }
  }
  return node;
}

Json MessageTree(Collective c, const Row& row, const Json& builtin, Notes* notes) {
  auto choice = [&](const Piece& p) {
    return p.native ? Guarded(c, *p.native, builtin) : builtin;
  };
  if (row.pieces.size() == 1) return choice(row.pieces[0]);
  const std::string condition(kFileNames[IndexOf(c)].mpich_condition);
  Json chain = Json::object();
  for (size_t i = 0; i < row.pieces.size(); ++i) {
    const Piece& p = row.pieces[i];
    // MPICH reads thresholds with atoi: the range reaching INT_MAX takes
    // every size above as well.
    const bool last =
        i + 1 == row.pieces.size() || p.max >= static_cast<uint64_t>(INT_MAX);
    if (last) {
      for (size_t j = i + 1; j < row.pieces.size(); ++j) {
        if (row.pieces[j].native != p.native) {
          notes->Add(
              std::string(InfoOf(c).name) +
              ": choices above 2 GiB cannot be told apart in mpich-json; they follow "
              "the range below");
        }
      }
      chain[condition + "=any"] = choice(p);
      break;
    }
    chain[condition + "<=" + std::to_string(p.max)] = choice(p);
  }
  return chain;
}

// The communicators MPICH makes inside its own algorithms (the node and
// node-roots communicators of smp algorithms) keep MPICH's choices: the
// shim, which sees only the application's calls, never tunes them either.
Json IntraTree(Collective c, const std::vector<Row>& rows, const Json& builtin,
               Notes* notes) {
  Json chain = Json::object();
  if (rows.size() == 1) {
    chain = MessageTree(c, rows[0], builtin, notes);
  } else {
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string key = i + 1 == rows.size()
                                  ? std::string("comm_size=any")
                                  : "comm_size<=" + std::to_string(rows[i].hi);
      chain[key] = MessageTree(c, rows[i], builtin, notes);
    }
  }
  Json tree = Json::object();
  tree["comm_hierarchy=node"] = builtin;
  tree["comm_hierarchy=node_roots"] = builtin;
  tree["comm_hierarchy=any"] = std::move(chain);
  return tree;
}

absl::StatusOr<std::string> MpichJson(
    Json tree, const std::vector<std::pair<Collective, std::vector<Row>>>& colls,
    Notes* notes) {
  for (const auto& [c, rows] : colls) {
    const std::string key = "collective=" + std::string(InfoOf(c).name);
    if (!tree.contains(key) || !tree[key].is_object()) {
      return absl::FailedPreconditionError(
          "the MPICH selection tree to start from has no '" + key +
          "': MPICH's own choices for it cannot be kept");
    }
    Json& entry = tree[key];
    if (entry.contains("comm_type=intra")) {
      entry["comm_type=intra"] =
          IntraTree(c, rows, Normalized(entry["comm_type=intra"]), notes);
    } else {
      // A collective decided the same way for both kinds (gatherv's
      // allcomm algorithms): intra-communicators get the new branch.
      const Json both = entry;
      entry = Json{{"comm_type=intra", IntraTree(c, rows, Normalized(both), notes)},
                   {"comm_type=inter", both}};
    }
  }
  return tree.dump(2) + "\n";
}

// Whether `tree` is an MPIR-level selection tree: MPIR_ algorithms only (the
// library also holds the ch4 and POSIX trees, whose leaves are MPIDI_).
bool OnlyMpirLeaves(const Json& tree) {
  if (!tree.is_object()) return false;
  for (const auto& [key, value] : tree.items()) {
    if (key.rfind("algorithm=", 0) == 0 || key.rfind("composition=", 0) == 0) {
      if (key.rfind("algorithm=MPIR_", 0) != 0) return false;
    } else if (!OnlyMpirLeaves(value)) {
      return false;
    }
  }
  return true;
}

// MPICH compiles its built-in tree into the library as one JSON string
// (csel_json_autogen.c, not an exported symbol): found by its shape.
std::optional<Json> BuiltinTree(const std::string& library) {
  constexpr std::string_view kStart = "{\"collective=";
  size_t pos = 0;
  while ((pos = library.find(kStart, pos)) != std::string::npos) {
    const size_t end = library.find('\0', pos);
    if (end == std::string::npos) break;
    if (pos == 0 || library[pos - 1] == '\0') {
      Json tree =
          Json::parse(library.begin() + pos, library.begin() + end, nullptr, false);
      if (!tree.is_discarded() && tree.contains("collective=allreduce") &&
          OnlyMpirLeaves(tree)) {
        return tree;
      }
    }
    pos = end;
  }
  return std::nullopt;
}

std::string FindMpichLibrary() {
  std::vector<std::string> dirs;
  if (const char* v = getenv("LD_LIBRARY_PATH"); v != nullptr) {
    std::stringstream in(v);
    std::string d;
    while (std::getline(in, d, ':')) {
      if (!d.empty()) dirs.push_back(d);
    }
  }
  dirs.push_back("/usr/local/lib");
#if defined(__x86_64__)
  dirs.push_back("/usr/lib/x86_64-linux-gnu");
#elif defined(__aarch64__)
  dirs.push_back("/usr/lib/aarch64-linux-gnu");
#endif
  dirs.push_back("/usr/lib64");
  dirs.push_back("/usr/lib");
  for (const std::string& d : dirs) {
    for (const char* name : {"libmpich.so.12", "libmpich.so"}) {
      const std::string path = d + "/" + name;
      if (access(path.c_str(), R_OK) == 0) return path;
    }
  }
  return "";
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read " + path);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (in.bad()) return absl::DataLossError("error reading " + path);
  return bytes;
}

// The tree to start from, and the library's bytes to check names against.
absl::StatusOr<Json> MpichBase(const ExportArgs& args, std::string* library_bytes,
                               Notes* notes) {
  const std::string library =
      args.mpich_library.empty() ? FindMpichLibrary() : args.mpich_library;
  if (!library.empty()) {
    absl::StatusOr<std::string> bytes = ReadFile(library);
    if (!bytes.ok()) return bytes.status();
    *library_bytes = std::move(*bytes);
  }
  if (!args.mpich_base.empty()) {
    absl::StatusOr<std::string> text = ReadFile(args.mpich_base);
    if (!text.ok()) return text.status();
    Json tree = Json::parse(*text, nullptr, false);
    if (tree.is_discarded() || !tree.is_object()) {
      return absl::InvalidArgumentError(args.mpich_base + " is not a JSON object");
    }
    if (library.empty()) {
      notes->Add(
          "no MPICH library found: algorithm names not checked against it "
          "(--mpich-library PATH)");
    }
    return tree;
  }
  if (library.empty()) {
    return absl::NotFoundError(
        "cannot find MPICH's library (libmpich.so.12) to read its built-in selection "
        "tree "
        "from: pass --mpich-library PATH, or --mpich-base FILE (the tree to start from, "
        "e.g. maint/tuning/coll/mpir/generic.json of the MPICH source)");
  }
  std::optional<Json> tree = BuiltinTree(*library_bytes);
  if (!tree) {
    return absl::NotFoundError(
        "no built-in MPIR selection tree found in " + library +
        ": pass --mpich-base FILE (the tree to start from, e.g. "
        "maint/tuning/coll/mpir/generic.json of the MPICH source)");
  }
  return *tree;
}

// ---------------------------------------------------------------------------
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
  auto stub = client::Connect(c.server);
  v1::GetTableRequest request;
  v1::Context* ctx = request.mutable_context();
  ctx->set_cluster(args.context.cluster);
  ctx->set_library(args.context.library.empty() ? std::string(t.library_name)
                                                : args.context.library);
  ctx->set_library_version(args.context.library_version);
  // Without a size: a job as large as allowed gets every measured size.
  ctx->set_comm_size(args.context.comm_size > 0 ? args.context.comm_size
                                                : limits::kMaxCommSize);
  ctx->set_nodes(args.context.nodes);
  ctx->set_ppn(args.context.ppn);
  v1::GetTableResponse response;
  grpc::Status status = stub->GetTable(Call(c).get(), request, &response);
  if (!status.ok()) return client::FromGrpc(status, c.server);
  std::vector<std::string> warnings;
  absl::StatusOr<Table> table = client::TableFromProto(response.table(), &warnings);
  for (const std::string& w : warnings) std::cerr << "colltune: " << w << "\n";
  const v1::Context& served = response.table().context();
  *source = "colltuned at " + client::ResolveAddress(c.server) + ", cluster '" +
            served.cluster() + "', " + served.library() + " " + served.library_version();
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
                  "(MPICH's collective-selection JSON)")
      ->required()
      ->check(CLI::IsMember({"ompi-rules", "mpich-json"}));
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
  cmd->add_option("-o,--output", a->output, "Write to this file (default: stdout)");
  cmd->add_flag("--assume-commutative", a->assume_commutative,
                "ompi-rules: also export the allreduce and reduce algorithms that are "
                "wrong for non-commutative operations (Open MPI's rules cannot tell them "
                "apart); for sites whose jobs reduce with commutative operations only");
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

int Export(const Connection& c, const ExportArgs& args) {
  const bool mpich = args.format == "mpich-json";
  if (!mpich && (!args.mpich_base.empty() || !args.mpich_library.empty())) {
    return Usage("--mpich-base and --mpich-library are for --format mpich-json");
  }
  if (mpich && args.assume_commutative) {
    return Usage(
        "--assume-commutative is for --format ompi-rules (MPICH's file checks "
        "commutativity itself)");
  }
  Target t{mpich ? kMpich : kOpenMpi, mpich ? "MPICH" : "Open MPI", args.format, mpich,
           args.assume_commutative};

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
    absl::StatusOr<Json> tree = MpichBase(args, &library_bytes, &notes);
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
