#include "db/table_store.h"

#include <tuple>

#include "absl/strings/str_cat.h"
#include "db/rows.h"

namespace colltune::db {
namespace {

// '' for the plain rules.
std::string LayoutColumn(const LayoutKey& key) {
  return IsRuleLayout(key) ? FormatLayoutKey(key) : std::string();
}

// The plain rules first, then each layout's, each by collective and size.
std::tuple<bool, int, int, int, uint64_t> RuleOrder(const Rule& r) {
  return {IsRuleLayout(r.layout), IndexOf(r.collective), static_cast<int>(r.layout.layout),
          r.layout.block_log2, r.min_bytes};
}

// The regime_switch column (migration 17): NULL for none.
std::string SwitchColumn(const Rule& r) {
  std::string out;
  const auto add = [&](const char* regime, const std::optional<Algorithm>& a, double speedup) {
    if (!a) return;
    if (!out.empty()) out += ';';
    out += absl::StrCat(regime, " ", std::string(InfoOf(*a).name), " ", speedup);
  };
  add("loop", r.loop, r.loop_speedup);
  add("imbalance", r.imbalance, r.imbalance_speedup);
  return out;
}

// Reads the column back into *r; false on anything SwitchColumn does not
// write (an algorithm this colltune does not know included).
bool ReadSwitch(const std::string& text, Rule* r) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const size_t a = item.find(' '), b = item.rfind(' ');
    if (a == std::string::npos || b == a) return false;
    const std::string regime = item.substr(0, a);
    const std::optional<Algorithm> alg = ParseAlgorithm(item.substr(a + 1, b - a - 1), r->collective);
    char* tail = nullptr;
    const double speedup = strtod(item.c_str() + b + 1, &tail);
    if (!alg || tail == nullptr || *tail != '\0') return false;
    if (regime == "loop") {
      r->loop = alg;
      r->loop_speedup = speedup;
    } else if (regime == "imbalance") {
      r->imbalance = alg;
      r->imbalance_speedup = speedup;
    } else {
      return false;
    }
    start = end + 1;
  }
  return true;
}

}  // namespace

absl::StatusOr<int64_t> TableStore::AddTable(int64_t profile_id,
                                        const std::vector<StoredRule>& rules,
                                        std::string_view reason,
                                        std::string_view changes) {
  if (absl::Status s = c_->RequireTransaction(); !s.ok()) return s;
  absl::StatusOr<Statement> st = c_->db->Query(
      absl::StrCat(
          "INSERT INTO decision_tables (profile_id, version, created_at, reason, "
          "changes) SELECT ?, COALESCE(MAX(version), 0) + 1, ",
          kNow,
          ", ?, ? FROM decision_tables WHERE profile_id = ? "
          "RETURNING id, version"),
      profile_id, reason, changes, profile_id);
  if (!st.ok()) return st.status();
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  const int64_t table_id = st->Int(0);
  const int64_t version = st->Int(1);
  for (const StoredRule& s : rules) {
    const Rule& r = s.rule;
    absl::StatusOr<Statement> ins = c_->db->Query(
        "INSERT INTO decision_rules (table_id, collective, min_bytes, "
        "max_bytes, algorithm, speedup, p_value, launches_default, "
        "launches_algorithm, campaigns, pinned, source, regimes, layout, "
        "regime_switch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        table_id, Name(r.collective), static_cast<int64_t>(r.min_bytes),
        r.max_bytes == kNoUpperBound ? int64_t{-1} : static_cast<int64_t>(r.max_bytes),
        Name(r.algorithm), r.speedup, s.p_value, s.launches_default, s.launches_algorithm,
        s.campaigns, s.pinned ? 1 : 0, s.source);
    if (!ins.ok()) return ins.status();
    if (s.regimes.empty()) {
      ins->BindNull(13);
    } else {
      ins->Bind(13, FormatRegimeEvidence(s.regimes));
    }
    ins->Bind(14, LayoutColumn(r.layout));
    if (r.Switches()) {
      ins->Bind(15, SwitchColumn(r));
    } else {
      ins->BindNull(15);
    }
    if (absl::Status e = ins->Run(); !e.ok()) return e;
  }
  return version;
}

absl::Status TableStore::RefreshEvidence(int64_t profile_id, int64_t version,
                                    const std::vector<StoredRule>& rules) {
  if (absl::Status s = c_->RequireTransaction(); !s.ok()) return s;
  for (const StoredRule& s : rules) {
    absl::StatusOr<Statement> up = c_->db->Query(
        "UPDATE decision_rules SET speedup = ?1, p_value = ?2, "
        "launches_default = ?3, launches_algorithm = ?4, campaigns = ?5, "
        "pinned = ?6, source = ?7, regimes = ?12 WHERE table_id = (SELECT id "
        "FROM decision_tables WHERE profile_id = ?8 AND version = ?9) AND "
        "collective = ?10 AND min_bytes = ?11 AND layout = ?13",
        s.rule.speedup, s.p_value, s.launches_default, s.launches_algorithm, s.campaigns,
        s.pinned ? 1 : 0, s.source, profile_id, version, Name(s.rule.collective),
        static_cast<int64_t>(s.rule.min_bytes));
    if (!up.ok()) return up.status();
    if (s.regimes.empty()) {
      up->BindNull(12);
    } else {
      up->Bind(12, FormatRegimeEvidence(s.regimes));
    }
    up->Bind(13, LayoutColumn(s.rule.layout));
    absl::Status e = up->Run();
    if (!e.ok()) return e;
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> TableStore::AddPin(int64_t profile_id, const PinRow& pin) {
  if (absl::Status s = c_->RequireTransaction(); !s.ok()) return s;
  absl::StatusOr<Statement> st = c_->db->Query(
      absl::StrCat("INSERT INTO pins (profile_id, collective, min_bytes, max_bytes, "
                   "algorithm, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ",
                   kNow, ") RETURNING id"),
      profile_id, Name(pin.collective), pin.min_bytes, pin.max_bytes, Name(pin.algorithm),
      pin.note);
  if (!st.ok()) return st.status();
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  return st->Int(0);
}

absl::StatusOr<bool> TableStore::DeletePin(int64_t profile_id, int64_t pin_id) {
  if (absl::Status s = c_->RequireTransaction(); !s.ok()) return s;
  absl::StatusOr<Statement> st =
      c_->db->Query("DELETE FROM pins WHERE profile_id = ? AND id = ? RETURNING id",
                    profile_id, pin_id);
  if (!st.ok()) return st.status();
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  return *row;
}

std::vector<Rule> TableVersion::Rules() const {
  std::vector<Rule> out;
  out.reserve(rules.size());
  for (const StoredRule& r : rules) out.push_back(r.rule);
  return out;
}

int TableVersion::RulesNotDefault() const {
  int n = 0;
  for (const StoredRule& r : rules) {
    if (r.rule.algorithm != Algorithm::kDefault || r.rule.Switches()) ++n;
  }
  return n;
}

absl::StatusOr<std::optional<TableVersion>> TableStore::LoadTable(int64_t table_id) {
  absl::StatusOr<Statement> st = c_->db->Query(
      "SELECT version, created_at, reason, changes FROM decision_tables "
      "WHERE id = ?",
      table_id);
  if (!st.ok()) return st.status();
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<TableVersion>();
  TableVersion t;
  t.version = st->Int(0);
  t.created_at = st->Text(1);
  t.reason = st->Text(2);
  t.changes = st->Text(3);
  absl::StatusOr<Statement> rules = c_->db->Query(
      "SELECT collective, min_bytes, max_bytes, algorithm, speedup, p_value, "
      "launches_default, launches_algorithm, campaigns, pinned, source, regimes, "
      "layout, regime_switch FROM decision_rules WHERE table_id = ?",
      table_id);
  if (!rules.ok()) return rules.status();
  absl::Status each = rules->EachRow([&](const Statement& row) -> absl::Status {
    StoredRule s;
    absl::Status names = ReadNames(row, 0, 3, &s.rule.collective, &s.rule.algorithm);
    if (!names.ok()) return names;
    s.rule.min_bytes = static_cast<uint64_t>(row.Int(1));
    const int64_t max = row.Int(2);
    s.rule.max_bytes = max < 0 ? kNoUpperBound : static_cast<uint64_t>(max);
    s.rule.speedup = row.Real(4);
    s.p_value = row.Real(5);
    s.launches_default = static_cast<int>(row.Int(6));
    s.launches_algorithm = static_cast<int>(row.Int(7));
    s.campaigns = row.Text(8);
    s.pinned = row.Int(9) != 0;
    s.source = row.Text(10);
    // Unreadable evidence (written by hand) is shown as none, not fatal.
    if (!row.IsNull(11) && !ParseRegimeEvidence(row.Text(11), &s.regimes)) {
      s.regimes.clear();
    }
    const std::string layout = row.Text(12);
    if (!layout.empty()) {
      const std::optional<LayoutKey> key = ParseLayoutKey(layout);
      if (!key || !IsRuleLayout(*key)) {
        return absl::DataLossError("decision rule for " + row.Text(0) +
                                   " has an unknown datatype layout '" + layout + "'");
      }
      s.rule.layout = *key;
    }
    if (!row.IsNull(13) && !ReadSwitch(row.Text(13), &s.rule)) {
      return absl::DataLossError("decision rule for " + row.Text(0) +
                                 " has an unreadable regime switch '" + row.Text(13) + "'");
    }
    t.rules.push_back(std::move(s));
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  std::sort(t.rules.begin(), t.rules.end(),
            [](const StoredRule& a, const StoredRule& b) {
              return RuleOrder(a.rule) < RuleOrder(b.rule);
            });
  return std::optional<TableVersion>(std::move(t));
}

absl::StatusOr<std::optional<TableVersion>> TableStore::CurrentTable(
    int64_t profile_id) {
  return TableAt(profile_id, 0);
}

absl::StatusOr<std::optional<TableVersion>> TableStore::TableAt(int64_t profile_id,
                                                           int64_t version) {
  absl::StatusOr<Statement> st = c_->db->Query(
      version > 0 ? "SELECT id FROM decision_tables WHERE profile_id = ?1 AND "
                    "version = ?2"
                  : "SELECT id FROM decision_tables WHERE profile_id = ?1 "
                    "ORDER BY version DESC LIMIT 1",
      profile_id);
  if (!st.ok()) return st.status();
  if (version > 0) st->Bind(2, version);
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<TableVersion>();
  const int64_t table_id = st->Int(0);
  return LoadTable(table_id);
}

absl::StatusOr<std::vector<TableVersionInfo>> TableStore::TableHistory(
    int64_t profile_id) {
  absl::StatusOr<Statement> st = c_->db->Query(
      "SELECT t.version, t.created_at, t.reason, t.changes, "
      "(SELECT COUNT(*) FROM decision_rules r WHERE r.table_id = t.id AND "
      "r.algorithm != 'default') FROM decision_tables t WHERE t.profile_id = ? "
      "ORDER BY t.version DESC",
      profile_id);
  if (!st.ok()) return st.status();
  std::vector<TableVersionInfo> out;
  absl::Status each = st->EachRow([&](const Statement& row) {
    TableVersionInfo v;
    v.version = row.Int(0);
    v.created_at = row.Text(1);
    v.reason = row.Text(2);
    v.changes = row.Text(3);
    v.rules_not_default = static_cast<int>(row.Int(4));
    out.push_back(std::move(v));
  });
  if (!each.ok()) return each;
  return out;
}

absl::StatusOr<std::vector<PinRow>> TableStore::Pins(int64_t profile_id) {
  absl::StatusOr<Statement> st = c_->db->Query(
      "SELECT id, collective, min_bytes, max_bytes, algorithm, note, "
      "created_at FROM pins WHERE profile_id = ? ORDER BY id",
      profile_id);
  if (!st.ok()) return st.status();
  std::vector<PinRow> out;
  absl::Status each = st->EachRow([&](const Statement& row) -> absl::Status {
    PinRow p;
    p.id = row.Int(0);
    absl::Status names = ReadNames(row, 1, 4, &p.collective, &p.algorithm);
    if (!names.ok()) return names;
    p.min_bytes = row.Int(2);
    p.max_bytes = row.Int(3);
    p.note = row.Text(5);
    p.created_at = row.Text(6);
    out.push_back(std::move(p));
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  return out;
}

}  // namespace colltune::db
