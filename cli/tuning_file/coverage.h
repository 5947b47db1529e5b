// The conversion shared by both tuning-file formats: which table section
// serves which communicator sizes, exactly as the shim selects them, and
// each collective's message-size ranges in the library's own measure.
#ifndef COLLTUNE_CLI_TUNING_FILE_COVERAGE_H_
#define COLLTUNE_CLI_TUNING_FILE_COVERAGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/tuning_file/vocabulary.h"
#include "common/catalog.h"
#include "common/limits.h"
#include "common/table.h"

namespace colltune::cli::tuning_file {

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
  // ompi-rules: also the algorithms that are wrong for reductions of derived
  // datatypes whose data does not start at their origin (the site's jobs
  // reduce predefined datatypes only).
  bool assume_predefined_reductions = false;
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
  std::string Why(Collective c, Algorithm a, uint32_t lo, uint32_t hi) const;
};

inline constexpr uint32_t kOpen = UINT32_MAX;  // a span of communicator sizes with no end

// Communicator sizes [lo, hi] served by one table section (null: none).
struct Span {
  uint32_t lo;
  uint32_t hi;
  const Section* section;
};

// A range of message sizes and its choice (nullopt: the library decides).
struct Piece {
  uint64_t min = 0;
  uint64_t max = kNoUpperBound;  // inclusive
  std::optional<Algorithm> native;

  bool operator==(const Piece& o) const {
    return min == o.min && max == o.max && native == o.native;
  }
};

// One communicator-size entry of a collective: sizes [lo, hi], and the
// message-size ranges in the library's own measure.
struct Row {
  uint32_t lo;
  uint32_t hi;
  std::vector<const Section*> sections;  // where its choices come from
  std::vector<Piece> pieces;
};

// Which section serves which communicator sizes, exactly as SelectSection
// decides.
std::vector<Span> Coverage(const Table& table);
// `spans` with size p in a span of its own (Open MPI's two_proc algorithms
// run on 2 processes only).
std::vector<Span> Isolate(const std::vector<Span>& spans, uint32_t p);
// Collective `c`'s entries for the file `t` writes: one per span (or per
// size, where the measure scales with it), its choices and what could not
// be carried over (in `notes`).
std::vector<Row> Rows(const Target& t, const Table& table, const std::vector<Span>& spans,
                      Collective c, Notes* notes);
// Whether any entry runs a native algorithm.
bool HasNative(const std::vector<Row>& rows);

// "section 4", "section *", "no section".
std::string SectionName(const Section* s);
// "3-5 processes", "9+ processes", "1 process".
std::string SizesText(uint32_t lo, uint32_t hi);
std::string SectionsText(const std::vector<const Section*>& sections);

}  // namespace colltune::cli::tuning_file

#endif  // COLLTUNE_CLI_TUNING_FILE_COVERAGE_H_
