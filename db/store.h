// colltune's persistent state in one SQLite file (WAL mode): profiles here,
// and by aggregate: campaigns and their raw measurements
// (db/campaign_store.h), versioned decision tables and pins
// (db/table_store.h), job reports (db/report_store.h).
//
// Open() creates the schema on first use and applies pending migrations
// (db/migrations/, recorded in schema_migrations). Every write happens inside
// InTransaction(): write methods called outside one fail, so a request is
// stored whole or not at all. A Store and its parts are not thread-safe; the
// daemon serializes access to them.
#ifndef COLLTUNE_DB_STORE_H_
#define COLLTUNE_DB_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "db/campaign_store.h"
#include "db/connection.h"
#include "db/profile.h"
#include "db/report_store.h"
#include "db/table_store.h"

namespace colltune::db {

class Store {
 public:
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& path);
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // The schema version after Open(): the number of the last migration.
  int schema_version() const { return schema_version_; }
  // True when the file could not be written at Open() (a read-only file
  // system): reads are served, every transaction is refused.
  bool read_only() const { return c_.read_only; }
  static int LatestSchemaVersion();

  // Runs `body` in one IMMEDIATE transaction: committed if it returns OK,
  // rolled back on any error.
  absl::Status InTransaction(const std::function<absl::Status()>& body);

  // The parts, over the same database and transactions.
  CampaignStore& campaigns() { return campaigns_; }
  TableStore& tables() { return tables_; }
  ReportStore& reports() { return reports_; }

  // Profiles. UpsertProfile writes (inside InTransaction only).
  absl::StatusOr<int64_t> UpsertProfile(const ProfileKey& key);
  absl::StatusOr<std::vector<Profile>> Profiles(std::string_view cluster = "",
                                                std::string_view library = "");
  absl::StatusOr<std::optional<Profile>> GetProfile(int64_t id);
  absl::StatusOr<std::optional<Profile>> FindProfile(const ProfileKey& key);
  // The campaigns' and the job reports' counts together.
  absl::StatusOr<ProfileCounts> Counts(int64_t profile_id);

 private:
  Store(std::unique_ptr<Database> db, std::string path, bool read_only);
  absl::Status Migrate();
  absl::Status BackfillLowerQuartiles();
  absl::Status CheckIntegrity();
  absl::Status ReadSchemaVersion();

  Connection c_;
  int schema_version_ = 0;
  CampaignStore campaigns_{&c_};
  TableStore tables_{&c_};
  ReportStore reports_{&c_};
};

}  // namespace colltune::db

#endif  // COLLTUNE_DB_STORE_H_
