#include "common/table_wire.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "common/catalog.h"
#include "common/counted.h"
#include "common/histogram.h"
#include "common/layout_class.h"
#include "common/limits.h"
#include "common/table.h"

namespace colltune::wire {
namespace {

// Protobuf's wire types.
enum WireType { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutTag(int field, WireType type, std::string* out) {
  PutVarint((static_cast<uint64_t>(field) << 3) | type, out);
}

void PutString(int field, const std::string& s, std::string* out) {
  if (s.empty()) return;  // proto3: defaults are not sent
  PutTag(field, kBytes, out);
  PutVarint(s.size(), out);
  out->append(s);
}

void PutInt(int field, int64_t v, std::string* out) {
  if (v == 0) return;
  PutTag(field, kVarint, out);
  // Negative int32/int64 travel as ten-byte two's complement varints.
  PutVarint(static_cast<uint64_t>(v), out);
}

void PutDouble(int field, double v, std::string* out) {
  if (v == 0) return;
  PutTag(field, kFixed64, out);
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(bits >> (8 * i)));
}

void PutMessage(int field, const std::string& body, std::string* out) {
  PutTag(field, kBytes, out);
  PutVarint(body.size(), out);
  out->append(body);
}

// Reads one message's fields in order; keeps the position and the first
// error.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : p_(bytes) {}

  bool done() const { return p_.empty() || failed_; }
  bool failed() const { return failed_; }

  // The next field's number and wire type; false at the end or on error.
  bool Next(int* field, int* type) {
    if (p_.empty() || failed_) return false;
    uint64_t tag = 0;
    if (!Varint(&tag)) return false;
    *field = static_cast<int>(tag >> 3);
    *type = static_cast<int>(tag & 7);
    if (*field == 0 || tag >> 3 > (1u << 29)) return Fail();
    return true;
  }
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (p_.empty()) return Fail();
      const uint8_t byte = static_cast<uint8_t>(p_[0]);
      p_.remove_prefix(1);
      if (shift == 63 && byte > 1) return Fail();  // beyond 64 bits
      *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return Fail();
  }
  bool Bytes(std::string_view* s) {
    uint64_t n = 0;
    if (!Varint(&n)) return false;
    if (n > p_.size()) return Fail();
    *s = p_.substr(0, n);
    p_.remove_prefix(n);
    return true;
  }
  bool Fixed64(uint64_t* v) {
    if (p_.size() < 8) return Fail();
    *v = 0;
    for (int i = 7; i >= 0; --i) *v = (*v << 8) | static_cast<uint8_t>(p_[i]);
    p_.remove_prefix(8);
    return true;
  }
  // Skips a field of `type` nobody here reads.
  bool Skip(int type) {
    uint64_t v;
    std::string_view s;
    switch (type) {
      case kVarint: return Varint(&v);
      case kFixed64: return Fixed64(&v);
      case kBytes: return Bytes(&s);
      case kFixed32:
        if (p_.size() < 4) return Fail();
        p_.remove_prefix(4);
        return true;
      default: return Fail();  // groups (deprecated) and invalid types
    }
  }
  // Reads a field the schema declares of `want` wire type; a field sent
  // with another type is malformed.
  bool Int(int type, int64_t* out) {
    uint64_t v;
    if (type != kVarint || !Varint(&v)) return Fail();
    *out = static_cast<int64_t>(v);
    return true;
  }
  bool String(int type, std::string* out) {
    std::string_view s;
    if (type != kBytes || !Bytes(&s)) return Fail();
    out->assign(s);
    return true;
  }
  bool Message(int type, std::string_view* out) {
    if (type != kBytes || !Bytes(out)) return Fail();
    return true;
  }
  bool Double(int type, double* out) {
    uint64_t v;
    if (type != kFixed64 || !Fixed64(&v)) return Fail();
    memcpy(out, &v, sizeof v);
    return true;
  }
  bool Fail() {
    failed_ = true;
    return false;
  }

 private:
  std::string_view p_;
  bool failed_ = false;
};

bool DecodeRule(std::string_view bytes, RuleMessage* rule) {
  Reader r(bytes);
  int field, type;
  while (r.Next(&field, &type)) {
    switch (field) {
      case 1: r.String(type, &rule->collective); break;
      case 2: r.Int(type, &rule->min_bytes); break;
      case 3: r.Int(type, &rule->max_bytes); break;
      case 4: r.String(type, &rule->algorithm); break;
      case 5: r.Double(type, &rule->speedup); break;
      case 13: r.String(type, &rule->layout); break;
      case 14: r.String(type, &rule->loop_algorithm); break;
      case 15: r.String(type, &rule->imbalance_algorithm); break;
      default: r.Skip(type);
    }
  }
  return !r.failed();
}

bool DecodeSection(std::string_view bytes, SectionMessage* section, std::string* error) {
  Reader r(bytes);
  int field, type;
  while (r.Next(&field, &type)) {
    std::string_view sub;
    switch (field) {
      case 1: r.Int(type, &section->comm_size); break;
      case 2: r.Int(type, &section->profile_id); break;
      case 3: r.Int(type, &section->version); break;
      case 4:
        if (!r.Message(type, &sub)) break;
        if (section->rules.size() >= static_cast<size_t>(limits::kMaxRulesPerSection)) {
          *error = "a section has more than " +
                   std::to_string(limits::kMaxRulesPerSection) + " rules";
          return false;
        }
        section->rules.emplace_back();
        if (!DecodeRule(sub, &section->rules.back())) r.Fail();
        break;
      default: r.Skip(type);
    }
  }
  if (r.failed()) *error = "malformed table section";
  return !r.failed();
}

bool DecodeContextLibrary(std::string_view bytes, std::string* library,
                          std::string* version) {
  Reader r(bytes);
  int field, type;
  while (r.Next(&field, &type)) {
    if (field == 2) {
      r.String(type, library);
    } else if (field == 3) {
      r.String(type, version);
    } else {
      r.Skip(type);
    }
  }
  return !r.failed();
}

// Merges into *table, as protobuf merges a message field that occurs twice.
bool DecodeTableInto(std::string_view bytes, TableMessage* table, std::string* error) {
  Reader r(bytes);
  int field, type;
  while (r.Next(&field, &type)) {
    std::string_view sub;
    int64_t flag = 0;
    switch (field) {
      case 1:
        if (r.Message(type, &sub) &&
            !DecodeContextLibrary(sub, &table->library, &table->library_version)) {
          r.Fail();
        }
        break;
      case 2:
        if (!r.Message(type, &sub)) break;
        if (table->sections.size() >= static_cast<size_t>(limits::kMaxSectionsPerTable)) {
          *error = "more than " + std::to_string(limits::kMaxSectionsPerTable) +
                   " sections";
          return false;
        }
        table->sections.emplace_back();
        if (!DecodeSection(sub, &table->sections.back(), error)) return false;
        break;
      case 3:
        if (r.Int(type, &flag)) table->reproducible = flag != 0;
        break;
      default: r.Skip(type);
    }
  }
  if (r.failed()) *error = "malformed decision table";
  return !r.failed();
}

// colltune.v1.Context.
std::string EncodeContext(const JobContext& c) {
  std::string out;
  PutString(1, c.cluster, &out);
  PutString(2, c.library, &out);
  PutString(3, c.library_version, &out);
  PutInt(4, c.comm_size, &out);
  PutInt(5, c.nodes, &out);
  PutInt(6, c.ppn, &out);
  PutString(7, c.placement, &out);
  PutString(8, c.node_sizes, &out);
  return out;
}

}  // namespace

std::string EncodeGetTableRequest(const TableRequest& request) {
  const std::string context = EncodeContext(request.context);
  std::string out;
  PutTag(1, kBytes, &out);
  PutVarint(context.size(), &out);
  out += context;
  if (request.decisions_only) PutInt(2, 1, &out);
  return out;
}

bool DecodeDecisionTable(std::string_view bytes, TableMessage* table, std::string* error) {
  *table = TableMessage();
  return DecodeTableInto(bytes, table, error);
}

bool DecodeGetTableResponse(std::string_view bytes, TableMessage* table,
                            std::string* error) {
  *table = TableMessage();
  Reader r(bytes);
  int field, type;
  while (r.Next(&field, &type)) {
    std::string_view sub;
    if (field != 1) {
      r.Skip(type);
    } else if (r.Message(type, &sub) && !DecodeTableInto(sub, table, error)) {
      return false;
    }
  }
  if (r.failed()) {
    *error = "malformed GetTable answer";
    return false;
  }
  return true;
}

bool TableTextFromMessage(const TableMessage& table, std::string* text,
                          std::vector<std::string>* warnings, std::string* error) {
  std::string out = "colltune-table " + std::to_string(kTableFormatVersion) + "\n";
  if (table.reproducible) out += "reproducible\n";
  // The library the daemon answered for: its native algorithms are that
  // library's (never applied under another).
  const std::string& library = table.library;
  if (!library.empty() && library.size() <= 64 &&
      library.find_first_of("\n\r#") == std::string::npos) {
    out += "library " + library + "\n";
  }
  // A version that is one token of at most 64 printable characters.
  const std::string& version = table.library_version;
  if (!version.empty() && version.size() <= 64 &&
      std::all_of(version.begin(), version.end(), [](char c) { return c > ' ' && c < 127 && c != '#'; })) {
    out += "library_version " + version + "\n";
  }
  for (const SectionMessage& s : table.sections) {
    if (s.comm_size < 1 || s.comm_size > limits::kMaxCommSize) {
      *error = "daemon sent a section for comm size " + std::to_string(s.comm_size);
      return false;
    }
    out += "section " + std::to_string(s.comm_size);
    if (s.profile_id > 0) out += " profile=" + std::to_string(s.profile_id);
    if (s.version > 0) out += " version=" + std::to_string(s.version);
    out += "\n";
    for (const RuleMessage& r : s.rules) {
      const std::optional<Collective> c = ParseCollective(r.collective);
      if (!c) {
        *error = "daemon sent an unknown collective '" + r.collective.substr(0, 64) + "'";
        return false;
      }
      if (!ParseAlgorithm(r.algorithm, *c)) {
        warnings->push_back("unknown algorithm '" + r.algorithm.substr(0, 64) + "' for " +
                            r.collective.substr(0, 64) + ": that range runs default");
        continue;
      }
      if (r.min_bytes < 0 || r.max_bytes < -1) {
        *error = "daemon sent a negative byte range";
        return false;
      }
      // A layout key the parser does not take (a newer daemon's layout
      // class) leaves that rule out: those calls run what the plain rules say.
      std::string key = r.collective;
      if (!r.layout.empty()) {
        const std::optional<LayoutKey> layout = ParseLayoutKey(r.layout);
        if (!layout || !IsRuleLayout(*layout)) {
          warnings->push_back("unknown datatype layout '" + r.layout.substr(0, 64) + "' for " +
                              r.collective + ": that rule is left out");
          continue;
        }
        key += "@" + FormatLayoutKey(*layout);
      }
      out += key + " " + std::to_string(r.min_bytes) + " " +
             (r.max_bytes < 0 ? std::string("inf") : std::to_string(r.max_bytes)) + " " +
             r.algorithm;
      if (r.speedup > 0 && r.speedup < 1e9) out += " " + std::to_string(r.speedup);
      // A switch to an algorithm this shim does not know (a newer daemon's)
      // is left out: that regime runs the rule's algorithm.
      const std::pair<const char*, const std::string*> switches[] = {
          {"loop", &r.loop_algorithm}, {"imbalance", &r.imbalance_algorithm}};
      for (const auto& [regime, name] : switches) {
        if (name->empty()) continue;
        const std::optional<Algorithm> a = ParseAlgorithm(*name, *c);
        if (!a || AtLaunchOnly(*a) || !r.layout.empty()) {
          warnings->push_back(std::string("unknown ") + regime + " switch '" +
                              name->substr(0, 64) + "' for " + r.collective.substr(0, 64) +
                              ": that regime runs the rule's algorithm");
          continue;
        }
        out += std::string(" ") + regime + "=" + *name;
      }
      out += "\n";
    }
  }
  *text = std::move(out);
  return true;
}

std::string EncodeReportJobRequest(const Report& r) {
  std::string out;
  PutMessage(1, EncodeContext(r.context), &out);
  PutString(2, r.job_id, &out);
  PutInt(3, r.table_version, &out);
  for (const ReportTiming& t : r.timings) {
    std::string timing, bins;
    PutString(1, std::string(InfoOf(t.collective).name), &timing);
    PutString(2, std::string(InfoOf(t.algorithm).name), &timing);
    PutInt(3, static_cast<int64_t>(histogram::BucketMin(t.bucket)), &timing);
    PutInt(4, static_cast<int64_t>(histogram::BucketMax(t.bucket)), &timing);
    PutInt(5, static_cast<int64_t>(t.calls), &timing);
    PutInt(6, static_cast<int64_t>(t.timed), &timing);
    PutDouble(7, static_cast<double>(t.sum_ns) * 1e-9, &timing);
    PutInt(8, t.comm_size, &timing);
    PutInt(9, t.profile_id, &timing);
    PutInt(10, t.first_bin, &timing);
    for (uint64_t b : t.bins) PutVarint(b, &bins);  // packed, as proto3 sends it
    if (!bins.empty()) PutMessage(11, bins, &timing);
    PutInt(12, static_cast<int64_t>(t.explored), &timing);
    PutMessage(4, timing, &out);
  }
  PutString(5, "online", &out);
  PutInt(6, r.final ? 1 : 0, &out);
  PutInt(7, r.ranks, &out);
  PutString(8, r.run_id, &out);
  for (const ReportCount& c : r.counts) {
    const CountedInfo& info = CountedInfoOf(c.id);
    std::string counted;
    PutString(1, std::string(KindName(info.kind)), &counted);
    PutString(2, std::string(info.name), &counted);
    PutInt(3, static_cast<int64_t>(histogram::BucketMin(c.bucket)), &counted);
    PutInt(4, static_cast<int64_t>(histogram::BucketMax(c.bucket)), &counted);
    PutInt(5, static_cast<int64_t>(c.calls), &counted);
    PutMessage(9, counted, &out);
  }
  return out;
}

}  // namespace colltune::wire
