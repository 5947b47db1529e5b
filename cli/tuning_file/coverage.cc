#include "cli/tuning_file/coverage.h"

#include <algorithm>
#include <cmath>

#include "common/quirks.h"

namespace colltune::cli::tuning_file {

std::string Target::Why(Collective c, Algorithm a, uint32_t lo, uint32_t hi) const {
  if (!(InfoOf(a).libraries & library)) {
    return std::string(library_name) + " has no such algorithm";
  }
  // The library's own defects (common/quirks.h): a file applies to every
  // form of a call, so an algorithm wrong in any form stays out, except
  // for the forms the site says its jobs never have.
  uint8_t wrong = 0;
  const Quirk* seen = nullptr;
  for (const Quirk* q = QuirksBegin(); q != QuirksEnd(); ++q) {
    if (!QuirkHolds(*q, a, library, library_version)) continue;
    wrong |= q->forms;
    if (seen == nullptr) seen = q;
  }
  uint8_t assumed = 0;
  if (assume_commutative) assumed |= kFormNonCommutative;
  if (assume_predefined_reductions) assumed |= kFormShiftedType;
  if ((wrong & ~assumed) != 0) {
    std::string why = std::string(library_name) + " " + std::string(seen->seen_in) +
                      "'s own is wrong for some calls (" + QuirkFormNames(wrong) +
                      "), which its file cannot tell apart";
    // What the site could vouch for instead (ompi-rules only).
    if (!mpich && (wrong & ~(kFormNonCommutative | kFormShiftedType)) == 0) {
      const bool both = (wrong & kFormNonCommutative) && (wrong & kFormShiftedType);
      why += both ? " (--assume-commutative and --assume-predefined-reductions export it)"
             : (wrong & kFormNonCommutative) ? " (--assume-commutative exports it)"
                                             : " (--assume-predefined-reductions exports it)";
    }
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

namespace {

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

}  // namespace

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

}  // namespace colltune::cli::tuning_file
