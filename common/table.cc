#include "common/table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <tuple>

namespace colltune {
namespace {

// What a table line naming a whole-job choice (AlgorithmInfo::at_launch) gets.
constexpr char kAtLaunchNote[] =
    " is chosen for a whole job at launch (Open MPI: --mca coll_han_priority 100), "
    "not per call; ";


std::vector<std::string_view> Tokens(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool ParseU64(std::string_view s, uint64_t* v) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

bool ParseI64(std::string_view s, int64_t* v) {
  if (s.empty() || s[0] == '+') return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

// from_chars is locale-independent: the shim parses inside applications
// that may have called setlocale().
bool ParseSpeedup(std::string_view s, double* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(*v) &&
         *v >= 0;
}

std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s.substr(0, 64)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (s.size() > 64) out += "...";
  return out + "'";
}

// A syntactically valid native algorithm name: "native:" and 1..64 of
// [a-z0-9_-].
bool IsNativeName(std::string_view s) {
  if (s.substr(0, kNativePrefix.size()) != kNativePrefix) return false;
  std::string_view rest = s.substr(kNativePrefix.size());
  if (rest.empty() || rest.size() > 64) return false;
  for (char c : rest) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
      return false;
    }
  }
  return true;
}

std::string LineError(size_t line, std::string_view what) {
  return "line " + std::to_string(line) + ": " + std::string(what);
}

// "bcast", or "bcast@struct" for a layout rule.
std::string RuleKey(const Rule& r) {
  std::string key(InfoOf(r.collective).name);
  if (r.layout.layout != LayoutClass::kContiguous) key += "@" + FormatLayoutKey(r.layout);
  return key;
}

bool RuleLess(const Rule& a, const Rule& b) {
  return std::make_tuple(IndexOf(a.collective), static_cast<int>(a.layout.layout),
                         a.layout.block_log2, a.min_bytes) <
         std::make_tuple(IndexOf(b.collective), static_cast<int>(b.layout.layout),
                         b.layout.block_log2, b.min_bytes);
}

// Orders the rules of every section and rejects overlapping ranges.
bool CheckRules(const Section& s, std::vector<Rule>* rules, std::string* error) {
  std::stable_sort(rules->begin(), rules->end(), RuleLess);
  for (size_t i = 1; i < rules->size(); ++i) {
    const Rule& a = (*rules)[i - 1];
    const Rule& b = (*rules)[i];
    if (a.collective == b.collective && a.layout == b.layout && b.min_bytes <= a.max_bytes) {
      *error = "section " +
               (s.comm_size ? std::to_string(s.comm_size) : std::string("*")) + ": " +
               RuleKey(a) + " ranges [" +
               std::to_string(a.min_bytes) + ", " +
               (a.max_bytes == kNoUpperBound ? std::string("inf")
                                             : std::to_string(a.max_bytes)) +
               "] and [" + std::to_string(b.min_bytes) + ", ...] overlap";
      return false;
    }
  }
  return true;
}

bool CheckSection(Section* s, std::string* error) {
  return CheckRules(*s, &s->rules, error) && CheckRules(*s, &s->layout_rules, error);
}

std::string FormatSpeedup(double v) {
  char buf[32];
  auto [p, ec] =
      std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 3);
  return ec == std::errc() ? std::string(buf, p) : std::string("0");
}

// Compares |log(a/p)| with |log(b/p)| exactly: -1 if a is nearer to p.
int CompareDistance(uint64_t a, uint64_t b, uint64_t p) {
  // Distance of x from p on a log scale is the ratio max(x,p)/min(x,p).
  // Compare hi_a/lo_a with hi_b/lo_b as hi_a*lo_b vs hi_b*lo_a.
  uint64_t hi_a = std::max(a, p), lo_a = std::min(a, p);
  uint64_t hi_b = std::max(b, p), lo_b = std::min(b, p);
  unsigned __int128 l = static_cast<unsigned __int128>(hi_a) * lo_b;
  unsigned __int128 r = static_cast<unsigned __int128>(hi_b) * lo_a;
  return l < r ? -1 : (l > r ? 1 : 0);
}

}  // namespace

bool Table::HasForce() const {
  for (const auto& f : forced) {
    if (f) return true;
  }
  return false;
}

size_t Table::RuleCount() const {
  size_t n = 0;
  for (const Section& s : sections) n += s.rules.size() + s.layout_rules.size();
  return n;
}

bool ParseTable(std::string_view text, Table* table, std::string* error) {
  if (text.size() > kMaxTableTextBytes) {
    *error = "table is " + std::to_string(text.size()) +
             " bytes, more than the limit of " +
             std::to_string(kMaxTableTextBytes);
    return false;
  }
  Table t;
  bool seen_header = false;
  Section* current = nullptr;
  size_t rules = 0;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find('\0') != std::string_view::npos) {
      *error = LineError(line_no, "contains a NUL byte");
      return false;
    }
    size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    std::vector<std::string_view> tok = Tokens(line);
    if (tok.empty()) continue;

    if (!seen_header) {
      if (tok.size() != 2 || tok[0] != "colltune-table") {
        *error = LineError(line_no,
                           "expected the header 'colltune-table " +
                               std::to_string(kTableFormatVersion) + "'");
        return false;
      }
      if (tok[1] != std::to_string(kTableFormatVersion)) {
        *error = LineError(line_no, "unsupported table format version " +
                                        Quote(tok[1]));
        return false;
      }
      seen_header = true;
      continue;
    }

    if (tok[0] == "reproducible") {
      if (tok.size() != 1) {
        *error = LineError(line_no, "expected 'reproducible' alone on its line");
        return false;
      }
      t.reproducible = true;
      continue;
    }

    if (tok[0] == "library") {
      if (tok.size() < 2 || !t.library.empty()) {
        *error = LineError(line_no, "expected one 'library <name>' line");
        return false;
      }
      // The name may hold spaces ("Open MPI"): the rest of the line.
      for (size_t i = 1; i < tok.size(); ++i) {
        if (i > 1) t.library += ' ';
        t.library += tok[i];
      }
      if (t.library.size() > 64) {
        *error = LineError(line_no, "library name longer than 64 characters");
        return false;
      }
      continue;
    }

    if (tok[0] == "library_version") {
      if (tok.size() != 2 || !t.library_version.empty() || tok[1].size() > 64) {
        *error = LineError(line_no, "expected one 'library_version <version>' line");
        return false;
      }
      t.library_version = std::string(tok[1]);
      continue;
    }

    if (tok[0] == "force") {
      if (tok.size() != 3) {
        *error = LineError(line_no, "expected 'force <collective> <algorithm>'");
        return false;
      }
      auto c = ParseCollective(tok[1]);
      if (!c) {
        *error = LineError(line_no, "unknown collective " + Quote(tok[1]));
        return false;
      }
      auto a = ParseAlgorithm(tok[2], *c);
      if (!a && IsNativeName(tok[2]) && !IsAlgorithmName(tok[2])) {
        t.notes.push_back(LineError(line_no, "native algorithm " + Quote(tok[2]) +
                                                 " is unknown to this colltune; " +
                                                 std::string(tok[1]) + " is not forced"));
        continue;
      }
      if (!a && !IsAlgorithmName(tok[2])) {
        *error = LineError(line_no, "unknown algorithm " + Quote(tok[2]));
        return false;
      }
      if (!a) {
        *error = LineError(line_no, "algorithm " + Quote(tok[2]) +
                                        " does not implement " + Quote(tok[1]));
        return false;
      }
      if (AtLaunchOnly(*a)) {
        t.notes.push_back(LineError(line_no, Quote(tok[2]) + kAtLaunchNote + std::string(tok[1]) +
                                                 " is not forced"));
        continue;
      }
      if (t.forced[IndexOf(*c)]) {
        *error = LineError(line_no, "collective " + Quote(tok[1]) +
                                        " is forced twice");
        return false;
      }
      t.forced[IndexOf(*c)] = *a;
      continue;
    }

    if (tok[0] == "section") {
      if (tok.size() < 2 || tok.size() > 4) {
        *error = LineError(
            line_no,
            "expected 'section <comm_size|*> [profile=<id>] [version=<n>]'");
        return false;
      }
      if (t.sections.size() >= kMaxTableSections) {
        *error = LineError(line_no, "more than " +
                                        std::to_string(kMaxTableSections) +
                                        " sections");
        return false;
      }
      Section s;
      if (tok[1] != "*") {
        uint64_t size = 0;
        if (!ParseU64(tok[1], &size) || size == 0 || size > 0x7fffffff) {
          *error = LineError(line_no, "communicator size " + Quote(tok[1]) +
                                          " is not a positive integer or '*'");
          return false;
        }
        s.comm_size = static_cast<uint32_t>(size);
      }
      for (size_t i = 2; i < tok.size(); ++i) {
        std::string_view kv = tok[i];
        int64_t v = 0;
        if (kv.substr(0, 8) == "profile=" && ParseI64(kv.substr(8), &v) &&
            v >= 0) {
          s.profile_id = v;
        } else if (kv.substr(0, 8) == "version=" &&
                   ParseI64(kv.substr(8), &v) && v >= 0) {
          s.version = v;
        } else {
          *error = LineError(line_no, "bad section attribute " + Quote(kv));
          return false;
        }
      }
      for (const Section& other : t.sections) {
        if (other.comm_size == s.comm_size) {
          *error = LineError(line_no, "section " + Quote(tok[1]) +
                                          " appears twice");
          return false;
        }
      }
      t.sections.push_back(std::move(s));
      current = &t.sections.back();
      continue;
    }

    // A rule line.
    const size_t at = tok[0].find('@');
    auto c = ParseCollective(tok[0].substr(0, at));
    if (!c) {
      *error = LineError(line_no, "unknown collective or keyword " +
                                      Quote(tok[0]));
      return false;
    }
    LayoutKey layout;
    if (at != std::string_view::npos) {
      const std::optional<LayoutKey> key = ParseLayoutKey(tok[0].substr(at + 1));
      if (!key || !IsRuleLayout(*key)) {
        *error = LineError(line_no, "layout " + Quote(tok[0].substr(at + 1)) +
                                        " is not one of tiled, indexed, struct, nested "
                                        "(optionally /<block bytes>, e.g. tiled/8B)");
        return false;
      }
      layout = *key;
    }
    if (current == nullptr) {
      *error = LineError(line_no, "rule before any 'section' line");
      return false;
    }
    // Optional tokens after the algorithm: the speedup, then the switch.
    size_t fixed = tok.size();
    while (fixed > 4 && (tok[fixed - 1].substr(0, 5) == "loop=" ||
                         tok[fixed - 1].substr(0, 10) == "imbalance=")) {
      --fixed;
    }
    if (tok.size() < 4 || fixed > 5) {
      *error = LineError(line_no,
                         "expected '<collective> <min_bytes> <max_bytes|inf> "
                         "<algorithm> [<speedup>] [loop=<algorithm>] "
                         "[imbalance=<algorithm>]'");
      return false;
    }
    if (++rules > kMaxTableRules) {
      *error = LineError(line_no, "more than " + std::to_string(kMaxTableRules) +
                                      " rules");
      return false;
    }
    Rule r;
    r.collective = *c;
    if (!ParseU64(tok[1], &r.min_bytes) || r.min_bytes == kNoUpperBound) {
      *error = LineError(line_no, "min_bytes " + Quote(tok[1]) +
                                      " is not a non-negative integer");
      return false;
    }
    if (tok[2] == "inf") {
      r.max_bytes = kNoUpperBound;
    } else if (!ParseU64(tok[2], &r.max_bytes) ||
               r.max_bytes == kNoUpperBound) {
      *error = LineError(line_no, "max_bytes " + Quote(tok[2]) +
                                      " is not a non-negative integer or 'inf'");
      return false;
    }
    if (r.max_bytes < r.min_bytes) {
      *error = LineError(line_no, "max_bytes is smaller than min_bytes");
      return false;
    }
    auto a = ParseAlgorithm(tok[3], *c);
    if (!a && IsNativeName(tok[3]) && !IsAlgorithmName(tok[3])) {
      t.notes.push_back(LineError(line_no, "native algorithm " + Quote(tok[3]) +
                                               " is unknown to this colltune; the "
                                               "default runs there"));
      continue;
    }
    if (!a && !IsAlgorithmName(tok[3])) {
      *error = LineError(line_no, "unknown algorithm " + Quote(tok[3]));
      return false;
    }
    if (!a) {
      *error = LineError(line_no, "algorithm " + Quote(tok[3]) +
                                      " does not implement " + Quote(tok[0]));
      return false;
    }
    if (AtLaunchOnly(*a)) {
      t.notes.push_back(LineError(line_no, Quote(tok[3]) + kAtLaunchNote +
                                               "the default runs there"));
      continue;
    }
    r.algorithm = *a;
    r.layout = layout;
    if (fixed == 5 && !ParseSpeedup(tok[4], &r.speedup)) {
      *error = LineError(line_no, "speedup " + Quote(tok[4]) +
                                      " is not a non-negative number");
      return false;
    }
    for (size_t i = fixed; i < tok.size(); ++i) {
      const bool loop = tok[i].substr(0, 5) == "loop=";
      const std::string_view name = tok[i].substr(loop ? 5 : 10);
      std::optional<Algorithm>& slot = loop ? r.loop : r.imbalance;
      if (layout.layout != LayoutClass::kContiguous) {
        *error = LineError(line_no, "a rule for a layout has no regime switch");
        return false;
      }
      if (slot) {
        *error = LineError(line_no, Quote(tok[i]) + " repeats a regime");
        return false;
      }
      const std::optional<Algorithm> sw = ParseAlgorithm(name, *c);
      if (!sw && IsNativeName(name) && !IsAlgorithmName(name)) {
        t.notes.push_back(LineError(line_no, "native algorithm " + Quote(name) +
                                                 " is unknown to this colltune; the "
                                                 "range runs " + Quote(tok[3]) +
                                                 " in that regime"));
        continue;
      }
      if (!sw) {
        *error = LineError(line_no, "regime switch " + Quote(tok[i]) +
                                        " names no algorithm of " + Quote(tok[0]));
        return false;
      }
      if (AtLaunchOnly(*sw)) {
        *error = LineError(line_no, "regime switch " + Quote(tok[i]) +
                                        ": an algorithm fixed at launch cannot switch");
        return false;
      }
      slot = *sw;
    }
    if (layout.layout == LayoutClass::kContiguous) {
      current->rules.push_back(r);
      continue;
    }
    if (r.algorithm != Algorithm::kDefault && !IsDatatypeForm(r.algorithm)) {
      *error = LineError(line_no, "a rule for a layout may name default or " +
                                      DatatypeFormNames(*c) + ", not " + Quote(tok[3]));
      return false;
    }
    current->layout_rules.push_back(r);
  }
  if (!seen_header) {
    *error = "empty table: expected the header 'colltune-table " +
             std::to_string(kTableFormatVersion) + "'";
    return false;
  }
  for (Section& s : t.sections) {
    if (!CheckSection(&s, error)) return false;
  }
  std::sort(t.sections.begin(), t.sections.end(),
            [](const Section& a, const Section& b) {
              return a.comm_size < b.comm_size;
            });
  *table = std::move(t);
  return true;
}

std::string FormatTable(const Table& table) {
  std::string out = "colltune-table " + std::to_string(kTableFormatVersion) + "\n";
  for (int i = 0; i < kNumCollectives; ++i) {
    if (!table.forced[i]) continue;
    out += "force ";
    out += InfoOf(static_cast<Collective>(i)).name;
    out += ' ';
    out += InfoOf(*table.forced[i]).name;
    out += '\n';
  }
  if (table.reproducible) out += "reproducible\n";
  if (!table.library.empty()) out += "library " + table.library + "\n";
  if (!table.library_version.empty()) {
    out += "library_version " + table.library_version + "\n";
  }
  for (const Section& s : table.sections) {
    out += "section ";
    out += s.comm_size ? std::to_string(s.comm_size) : std::string("*");
    if (s.profile_id) out += " profile=" + std::to_string(s.profile_id);
    if (s.version) out += " version=" + std::to_string(s.version);
    out += '\n';
    for (const std::vector<Rule>* rules : {&s.rules, &s.layout_rules}) {
      for (const Rule& r : *rules) {
        out += RuleKey(r);
        out += ' ' + std::to_string(r.min_bytes) + ' ';
        out += r.max_bytes == kNoUpperBound ? std::string("inf")
                                            : std::to_string(r.max_bytes);
        out += ' ';
        out += InfoOf(r.algorithm).name;
        if (r.speedup > 0) out += ' ' + FormatSpeedup(r.speedup);
        if (r.loop) out += " loop=" + std::string(InfoOf(*r.loop).name);
        if (r.imbalance) out += " imbalance=" + std::string(InfoOf(*r.imbalance).name);
        out += '\n';
      }
    }
  }
  return out;
}

const Section* SelectSection(const Table& table, uint32_t comm_size) {
  const Section* best = nullptr;
  const Section* any = nullptr;
  for (const Section& s : table.sections) {
    if (s.comm_size == 0) {
      any = &s;
      continue;
    }
    uint64_t hi = std::max(s.comm_size, comm_size);
    uint64_t lo = std::min(s.comm_size, comm_size);
    if (lo == 0 || hi > 2 * lo) continue;  // beyond a factor of 2
    // Sections are sorted by size, so on a tie the smaller one is kept.
    if (best == nullptr ||
        CompareDistance(s.comm_size, best->comm_size, comm_size) < 0) {
      best = &s;
    }
  }
  return best ? best : any;
}

std::vector<std::string> ParseForce(
    std::string_view spec,
    std::array<std::optional<Algorithm>, kNumCollectives>* forced) {
  std::vector<std::string> errors;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t end = spec.find(',', pos);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view item = spec.substr(pos, end - pos);
    pos = end + 1;
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      errors.push_back("COLLTUNE_FORCE: " + Quote(item) +
                       " is not of the form collective=algorithm");
      continue;
    }
    std::string_view cname = item.substr(0, eq);
    std::string_view aname = item.substr(eq + 1);
    auto c = ParseCollective(cname);
    if (!c) {
      errors.push_back("COLLTUNE_FORCE: unknown collective " + Quote(cname));
      continue;
    }
    auto a = ParseAlgorithm(aname, *c);
    if (!a && !IsAlgorithmName(aname)) {
      errors.push_back("COLLTUNE_FORCE: unknown algorithm " + Quote(aname));
      continue;
    }
    if (!a) {
      errors.push_back("COLLTUNE_FORCE: algorithm " + Quote(aname) +
                       " does not implement " + Quote(cname));
      continue;
    }
    if (AtLaunchOnly(*a)) {
      errors.push_back("COLLTUNE_FORCE: " + Quote(aname) + kAtLaunchNote + std::string(cname) +
                       " is not forced");
      continue;
    }
    (*forced)[IndexOf(*c)] = *a;
  }
  return errors;
}

}  // namespace colltune
