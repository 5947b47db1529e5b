// A profile's decision tables, one version per change, and its pins (a part
// of the Store, db/store.h).
#ifndef COLLTUNE_DB_TABLE_STORE_H_
#define COLLTUNE_DB_TABLE_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/catalog.h"
#include "common/regime.h"
#include "common/table.h"
#include "db/connection.h"

namespace colltune::db {

// A decision rule with the evidence behind it.
struct StoredRule {
  Rule rule;
  double p_value = 1;
  int launches_default = 0;
  int launches_algorithm = 0;
  std::string campaigns;  // comma-separated labels
  bool pinned = false;
  std::string source = "campaign";  // campaign, online or pin
  // Per regime; empty for rules decided on synchronized measurements only.
  std::vector<RegimeEvidence> regimes;
};

struct TableVersion {
  int64_t version = 0;
  std::string created_at;
  std::string reason;
  std::string changes;
  // The plain rules sorted by (collective, min_bytes), then the datatype
  // layouts' (Rule::layout) by (collective, layout, min_bytes).
  std::vector<StoredRule> rules;

  std::vector<Rule> Rules() const;
  int RulesNotDefault() const;
};

struct TableVersionInfo {
  int64_t version = 0;
  std::string created_at, reason, changes;
  int rules_not_default = 0;
};

struct PinRow {
  int64_t id = 0;
  Collective collective = Collective::kAllgather;
  int64_t min_bytes = 0;
  int64_t max_bytes = -1;  // -1: no upper bound
  Algorithm algorithm = Algorithm::kDefault;
  std::string note;
  std::string created_at;
};

class TableStore {
 public:
  explicit TableStore(Connection* c) : c_(c) {}

  // Stores `rules` as the profile's next table version; returns the version.
  absl::StatusOr<int64_t> AddTable(int64_t profile_id,
                                   const std::vector<StoredRule>& rules,
                                   std::string_view reason,
                                   std::string_view changes);
  // Updates the evidence (speedup, p-value, launches, campaigns, pinned) of
  // a stored version's rules, matched by (collective, layout, min_bytes), leaving its
  // decisions as they are.
  absl::Status RefreshEvidence(int64_t profile_id, int64_t version,
                               const std::vector<StoredRule>& rules);
  absl::StatusOr<int64_t> AddPin(int64_t profile_id, const PinRow& pin);
  // False if the profile has no such pin.
  absl::StatusOr<bool> DeletePin(int64_t profile_id, int64_t pin_id);
  absl::StatusOr<std::optional<TableVersion>> CurrentTable(int64_t profile_id);
  absl::StatusOr<std::optional<TableVersion>> TableAt(int64_t profile_id,
                                                      int64_t version);
  // Newest first.
  absl::StatusOr<std::vector<TableVersionInfo>> TableHistory(int64_t profile_id);
  absl::StatusOr<std::vector<PinRow>> Pins(int64_t profile_id);

 private:
  absl::StatusOr<std::optional<TableVersion>> LoadTable(int64_t table_id);
  Connection* c_;
};

}  // namespace colltune::db

#endif  // COLLTUNE_DB_TABLE_STORE_H_
