// The store against a real SQLite file.
#include "db/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <tuple>
#include <string>

namespace colltune::db {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  return path;
}

ProfileKey Key(int comm_size) {
  return ProfileKey{"cluster-a", "Open MPI", "4.1.4", comm_size, 1, comm_size};
}

// Raw SQL, bypassing the store, to see what is really in the file.
int64_t CountRows(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, ("SELECT COUNT(*) FROM " + table).c_str(), -1, &st,
                     nullptr);
  int64_t n = -1;
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

// Stores `points` (launch, measurement) in a new campaign "old" of a new
// profile, then runs `rewind` on the file with raw SQL, as an older
// colltuned's schema would have left it. Returns {profile, campaign} ids,
// {-1, -1} on failure.
// Takes a database back to before migration 13 (no regimes): the
// measurements table without its regime column (in the unique key, so
// rebuilt) and the columns it added elsewhere. Rewinds to older versions
// start with it.
constexpr char kBeforeRegimes[] =
    "ALTER TABLE campaigns DROP COLUMN held_out; "  // migration 16
    "CREATE TABLE m12 (id INTEGER PRIMARY KEY, campaign_id INTEGER NOT NULL, "
    "launch INTEGER NOT NULL, collective TEXT NOT NULL, algorithm TEXT NOT NULL, "
    "msg_bytes INTEGER NOT NULL, problem TEXT NOT NULL DEFAULT '', nrep INTEGER NOT "
    "NULL, median_s REAL NOT NULL, mean_s REAL NOT NULL, min_s REAL NOT NULL, max_s "
    "REAL NOT NULL, stddev_s REAL NOT NULL, samples BLOB NOT NULL, "
    "p_faster_than_default REAL, upper_quartile_s REAL, lower_quartile_s REAL, "
    "UNIQUE (campaign_id, launch, collective, algorithm, msg_bytes, problem)); "
    "INSERT INTO m12 SELECT id, campaign_id, launch, collective, algorithm, "
    "msg_bytes, problem, nrep, median_s, mean_s, min_s, max_s, stddev_s, samples, "
    "p_faster_than_default, upper_quartile_s, lower_quartile_s FROM measurements; "
    "DROP TABLE measurements; ALTER TABLE m12 RENAME TO measurements; "
    "ALTER TABLE campaign_launches DROP COLUMN regimes; "
    "ALTER TABLE decision_rules DROP COLUMN regimes; "
    "DELETE FROM schema_migrations WHERE version >= 13; ";

std::pair<int64_t, int64_t> StoreThenRewind(
    const std::string& path,
    const std::vector<std::pair<int, MeasurementInput>>& points,
    const char* rewind) {
  int64_t profile = -1, campaign = -1;
  {
    auto store = Store::Open(path);
    if (!store.ok()) return {-1, -1};
    Store& s = **store;
    const absl::Status stored = s.InTransaction([&]() -> absl::Status {
      profile = *s.UpsertProfile(Key(4));
      campaign = *s.campaigns().UpsertCampaign(profile, "old", "h");
      for (const auto& [launch, m] : points) {
        if (auto e = s.campaigns().PutMeasurement(campaign, launch, m); !e.ok()) return e;
      }
      return absl::OkStatus();
    });
    if (!stored.ok()) return {-1, -1};
  }
  sqlite3* db = nullptr;
  const bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
                  sqlite3_exec(db, rewind, nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  if (!ok) return {-1, -1};
  return {profile, campaign};
}

TEST(Store, CreatesTheSchemaInWalModeWithAMigrationRecord) {
  const std::string path = TempPath("create.db");
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->schema_version(), Store::LatestSchemaVersion());
  EXPECT_EQ(CountRows(path, "schema_migrations"), Store::LatestSchemaVersion());
  EXPECT_EQ(CountRows(path, "profiles"), 0);
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(Store, ReopeningKeepsEverything) {
  const std::string path = TempPath("reopen.db");
  int64_t profile = 0;
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    Store& s = **store;
    ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                   auto p = s.UpsertProfile(Key(4));
                   if (!p.ok()) return p.status();
                   profile = *p;
                   auto c = s.campaigns().UpsertCampaign(profile, "c1", "host");
                   if (!c.ok()) return c.status();
                   MeasurementInput m{Collective::kBcast, Algorithm::kDefault,
                                      64, {1e-6, 3e-6, 2e-6}};
                   if (auto e = s.campaigns().PutMeasurement(*c, 0, m); !e.ok()) return e;
                   StoredRule r;
                   r.rule = Rule{Collective::kBcast, 0, kNoUpperBound,
                                 Algorithm::kBcastAsScatterAllgather, 1.3};
                   r.p_value = 0.004;
                   r.launches_default = 5;
                   r.launches_algorithm = 4;
                   r.campaigns = "c1";
                   return s.tables().AddTable(profile, {r}, "test", "bcast changed").status();
                 }).ok());
  }
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  Store& s = **store;
  EXPECT_EQ(s.schema_version(), Store::LatestSchemaVersion());
  auto profiles = s.Profiles();
  ASSERT_TRUE(profiles.ok());
  ASSERT_EQ(profiles->size(), 1u);
  EXPECT_EQ((*profiles)[0].key.comm_size, 4);
  auto points = s.campaigns().LaunchPoints(profile);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ((*points)[0].nrep, 3);
  EXPECT_NEAR((*points)[0].median, 2e-6, 1e-12);
  auto table = s.tables().CurrentTable(profile);
  ASSERT_TRUE(table.ok());
  ASSERT_TRUE(table->has_value());
  EXPECT_EQ((*table)->version, 1);
  ASSERT_EQ((*table)->rules.size(), 1u);
  EXPECT_EQ((*table)->rules[0].rule.algorithm, Algorithm::kBcastAsScatterAllgather);
  EXPECT_EQ((*table)->rules[0].rule.max_bytes, kNoUpperBound);
  EXPECT_DOUBLE_EQ((*table)->rules[0].p_value, 0.004);
  EXPECT_EQ((*table)->rules[0].launches_algorithm, 4);
  EXPECT_EQ((*table)->rules[0].campaigns, "c1");
  EXPECT_EQ((*table)->changes, "bcast changed");
  auto samples = s.campaigns().Samples(points->at(0).campaign_id, 0, Collective::kBcast,
                           Algorithm::kDefault, 64);
  ASSERT_TRUE(samples.ok());
  ASSERT_EQ(samples->size(), 3u);
  EXPECT_NEAR((*samples)[1], 3e-6, 1e-12) << "float32 keeps ~7 digits";
}

TEST(Store, EvidenceIsRefreshedWithoutANewVersion) {
  auto store = Store::Open(TempPath("refresh.db"));
  ASSERT_TRUE(store.ok()) << store.status();
  Store& s = **store;
  int64_t profile = 0;
  StoredRule r;
  r.rule = Rule{Collective::kBcast, 0, kNoUpperBound,
                Algorithm::kBcastAsScatterAllgather, 1.3};
  r.p_value = 0.05;
  r.launches_default = r.launches_algorithm = 3;
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 auto p = s.UpsertProfile(Key(4));
                 if (!p.ok()) return p.status();
                 profile = *p;
                 return s.tables().AddTable(profile, {r}, "first", "").status();
               }).ok());
  r.p_value = 0.004;
  r.launches_default = r.launches_algorithm = 5;
  r.rule.speedup = 1.5;
  r.campaigns = "c1,c2";
  EXPECT_FALSE(s.tables().RefreshEvidence(profile, 1, {r}).ok()) << "needs a transaction";
  ASSERT_TRUE(s.InTransaction([&] { return s.tables().RefreshEvidence(profile, 1, {r}); }).ok());
  auto table = s.tables().CurrentTable(profile);
  ASSERT_TRUE(table.ok() && table->has_value());
  EXPECT_EQ((*table)->version, 1);
  ASSERT_EQ((*table)->rules.size(), 1u);
  EXPECT_DOUBLE_EQ((*table)->rules[0].p_value, 0.004);
  EXPECT_EQ((*table)->rules[0].launches_algorithm, 5);
  EXPECT_DOUBLE_EQ((*table)->rules[0].rule.speedup, 1.5);
  EXPECT_EQ((*table)->rules[0].campaigns, "c1,c2");
  EXPECT_EQ((*table)->rules[0].rule.algorithm, Algorithm::kBcastAsScatterAllgather);
}

// A rule for a derived datatype's layout is a rule of its own beside the
// plain one of the same collective and size, refreshed and loaded as such.
TEST(Store, LayoutRulesAreKeptApartFromThePlainOnes) {
  const std::string path = TempPath("layouts.db");
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  Store& s = **store;
  int64_t profile = 0;
  StoredRule plain, tiled, nested;
  plain.rule = Rule{Collective::kBcast, 0, kNoUpperBound, Algorithm::kDefault, 1};
  tiled.rule = Rule{Collective::kBcast, 0, kNoUpperBound, Algorithm::kBcastAsPacked, 1.4,
                    *ParseLayoutKey("tiled/8B")};
  nested.rule = Rule{Collective::kAllgather, 0, kNoUpperBound, Algorithm::kDefault, 1,
                     *ParseLayoutKey("nested")};
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 profile = *s.UpsertProfile(Key(4));
                 return s.tables().AddTable(profile, {nested, tiled, plain}, "t", "").status();
               }).ok());
  tiled.p_value = 0.002;
  ASSERT_TRUE(
      s.InTransaction([&] { return s.tables().RefreshEvidence(profile, 1, {tiled}); }).ok());
  auto table = s.tables().CurrentTable(profile);
  ASSERT_TRUE(table.ok() && table->has_value()) << table.status();
  ASSERT_EQ((*table)->rules.size(), 3u);
  // The plain rules first, then the layouts' by collective.
  EXPECT_FALSE(IsRuleLayout((*table)->rules[0].rule.layout));
  EXPECT_DOUBLE_EQ((*table)->rules[0].p_value, 1) << "the plain rule was not refreshed";
  EXPECT_EQ((*table)->rules[1].rule.collective, Collective::kAllgather);
  EXPECT_EQ(FormatLayoutKey((*table)->rules[1].rule.layout), "nested");
  EXPECT_EQ(FormatLayoutKey((*table)->rules[2].rule.layout), "tiled/8B");
  EXPECT_EQ((*table)->rules[2].rule.algorithm, Algorithm::kBcastAsPacked);
  EXPECT_DOUBLE_EQ((*table)->rules[2].p_value, 0.002);
  EXPECT_EQ((*table)->RulesNotDefault(), 1);
  EXPECT_EQ(CountRows(path, "decision_rules WHERE layout = ''"), 1);
}

// A rule's regime switch is stored with it and read back; a switch the
// store cannot read is data loss, not a silent default.
TEST(Store, RegimeSwitchesAreKept) {
  const std::string path = TempPath("switches.db");
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  Store& s = **store;
  int64_t profile = 0;
  StoredRule plain, switching;
  plain.rule = Rule{Collective::kBcast, 0, 4095, Algorithm::kBcastAsAllgatherv, 1.2};
  switching.rule = Rule{Collective::kBcast, 4096, kNoUpperBound, Algorithm::kDefault, 1};
  switching.rule.loop = Algorithm::kBcastAsScatterAllgather;
  switching.rule.loop_speedup = 2.5;
  switching.rule.imbalance = Algorithm::kDefault;
  switching.rule.imbalance_speedup = 1.25;
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 profile = *s.UpsertProfile(Key(4));
                 return s.tables().AddTable(profile, {plain, switching}, "t", "").status();
               }).ok());
  auto table = s.tables().CurrentTable(profile);
  ASSERT_TRUE(table.ok() && table->has_value()) << table.status();
  ASSERT_EQ((*table)->rules.size(), 2u);
  EXPECT_FALSE((*table)->rules[0].rule.Switches());
  const Rule& r = (*table)->rules[1].rule;
  EXPECT_EQ(r.loop, Algorithm::kBcastAsScatterAllgather);
  EXPECT_DOUBLE_EQ(r.loop_speedup, 2.5);
  EXPECT_EQ(r.imbalance, Algorithm::kDefault);
  EXPECT_DOUBLE_EQ(r.imbalance_speedup, 1.25);
  EXPECT_EQ((*table)->RulesNotDefault(), 2) << "a switch is a decision";
  EXPECT_EQ(CountRows(path, "decision_rules WHERE regime_switch IS NULL"), 1);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE decision_rules SET regime_switch = 'loop bcast_from_the_future 2' "
                             "WHERE regime_switch IS NOT NULL", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  table = s.tables().CurrentTable(profile);
  ASSERT_FALSE(table.ok());
  EXPECT_NE(std::string(table.status().message()).find("regime switch"), std::string::npos)
      << table.status();
}

TEST(Store, WritesOutsideATransactionAreRefused) {
  auto store = Store::Open(TempPath("notx.db"));
  ASSERT_TRUE(store.ok());
  auto p = (*store)->UpsertProfile(Key(2));
  EXPECT_EQ(p.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(Store, AFailedTransactionLeavesNothing) {
  const std::string path = TempPath("rollback.db");
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok());
  Store& s = **store;
  absl::Status st = s.InTransaction([&]() -> absl::Status {
    auto p = s.UpsertProfile(Key(8));
    if (!p.ok()) return p.status();
    auto c = s.campaigns().UpsertCampaign(*p, "c", "h");
    if (!c.ok()) return c.status();
    return absl::InvalidArgumentError("the third point was bad");
  });
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CountRows(path, "profiles"), 0);
  EXPECT_EQ(CountRows(path, "campaigns"), 0);
}

TEST(Store, TableVersionsIncreaseAndRelaunchedPointsAreReplaced) {
  auto store = Store::Open(TempPath("versions.db"));
  ASSERT_TRUE(store.ok());
  Store& s = **store;
  int64_t profile = 0;
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 profile = *s.UpsertProfile(Key(4));
                 int64_t c = *s.campaigns().UpsertCampaign(profile, "c", "h");
                 MeasurementInput m{Collective::kBcast, Algorithm::kDefault, 8, {1}};
                 if (auto e = s.campaigns().PutMeasurement(c, 0, m); !e.ok()) return e;
                 m.samples = {5, 5};
                 if (auto e = s.campaigns().PutMeasurement(c, 0, m); !e.ok()) return e;
                 if (auto e = s.campaigns().PutMeasurement(c, 1, m); !e.ok()) return e;
                 EXPECT_EQ(*s.tables().AddTable(profile, {}, "one", ""), 1);
                 EXPECT_EQ(*s.tables().AddTable(profile, {}, "two", ""), 2);
                 EXPECT_EQ(*s.UpsertProfile(Key(4)), profile) << "same context";
                 return absl::OkStatus();
               }).ok());
  auto points = s.campaigns().LaunchPoints(profile);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u) << "launch 0 replaced, launch 1 added";
  EXPECT_EQ((*points)[0].nrep, 2);
  EXPECT_EQ((*s.tables().CurrentTable(profile))->version, 2);
  EXPECT_EQ((*s.tables().CurrentTable(profile))->reason, "two");
  auto counts = s.Counts(profile);
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->campaigns, 1);
  EXPECT_EQ(counts->launches, 2);
  EXPECT_EQ(counts->measurements, 2);
}

TEST(Store, AHeldOutValidationKeepsItsKindAndMarksItsPoints) {
  auto store = Store::Open(TempPath("held_out.db"));
  ASSERT_TRUE(store.ok());
  Store& s = **store;
  int64_t profile = 0;
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 profile = *s.UpsertProfile(Key(4));
                 const int64_t c = *s.campaigns().UpsertCampaign(profile, "c", "h");
                 const int64_t v = *s.campaigns().UpsertCampaign(profile, "v", "h", true);
                 EXPECT_NE(c, v);
                 EXPECT_EQ(*s.campaigns().UpsertCampaign(profile, "v", "h2", true), v);
                 // A label stays what it was made.
                 EXPECT_EQ(s.campaigns().UpsertCampaign(profile, "c", "h", true).status().code(),
                           absl::StatusCode::kFailedPrecondition);
                 EXPECT_EQ(s.campaigns().UpsertCampaign(profile, "v", "h").status().code(),
                           absl::StatusCode::kFailedPrecondition);
                 MeasurementInput m{Collective::kBcast, Algorithm::kDefault, 8, {1}};
                 if (auto e = s.campaigns().PutMeasurement(c, 0, m); !e.ok()) return e;
                 if (auto e = s.campaigns().PutMeasurement(v, 0, m); !e.ok()) return e;
                 if (auto e = s.campaigns().PutCampaignLaunch(v, 0, -1, -1); !e.ok()) return e;
                 return absl::OkStatus();
               }).ok());
  auto points = s.campaigns().LaunchPoints(profile);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u);
  int held = 0;
  for (const LaunchPoint& p : *points) held += p.held_out ? 1 : 0;
  EXPECT_EQ(held, 1);
  auto launches = s.campaigns().CampaignLaunches(profile);
  ASSERT_TRUE(launches.ok());
  ASSERT_EQ(launches->size(), 1u);
  EXPECT_TRUE((*launches)[0].held_out);
}

TEST(Store, PinsHistoryAndCampaignPoints) {
  auto store = Store::Open(TempPath("pins.db"));
  ASSERT_TRUE(store.ok());
  Store& s = **store;
  int64_t profile = 0, pin = 0;
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 profile = *s.UpsertProfile(Key(4));
                 int64_t c = *s.campaigns().UpsertCampaign(profile, "spring", "h");
                 MeasurementInput m{Collective::kGather, Algorithm::kDefault, 64, {1, 2}};
                 if (auto e = s.campaigns().PutMeasurement(c, 3, m); !e.ok()) return e;
                 PinRow row;
                 row.collective = Collective::kGather;
                 row.algorithm = Algorithm::kGatherAsGatherv;
                 row.min_bytes = 10;
                 row.max_bytes = -1;
                 row.note = "vendor advice";
                 pin = *s.tables().AddPin(profile, row);
                 EXPECT_EQ(*s.tables().AddTable(profile, {}, "one", "a"), 1);
                 EXPECT_EQ(*s.tables().AddTable(profile, {}, "two", "b"), 2);
                 return absl::OkStatus();
               }).ok());
  auto pins = s.tables().Pins(profile);
  ASSERT_TRUE(pins.ok());
  ASSERT_EQ(pins->size(), 1u);
  EXPECT_EQ((*pins)[0].algorithm, Algorithm::kGatherAsGatherv);
  EXPECT_EQ((*pins)[0].max_bytes, -1);
  EXPECT_EQ((*pins)[0].note, "vendor advice");
  auto history = s.tables().TableHistory(profile);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].version, 2) << "newest first";
  EXPECT_EQ((*history)[1].changes, "a");
  EXPECT_TRUE((*s.tables().TableAt(profile, 1)).has_value());
  EXPECT_FALSE((*s.tables().TableAt(profile, 3)).has_value());
  auto points = s.campaigns().CampaignPoints(profile, "spring");
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ((*points)[0].launch, 3);
  EXPECT_EQ((*points)[0].samples, 2);
  EXPECT_TRUE(s.campaigns().CampaignPoints(profile, "autumn")->empty());
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 EXPECT_TRUE(*s.tables().DeletePin(profile, pin));
                 EXPECT_FALSE(*s.tables().DeletePin(profile, pin));
                 return absl::OkStatus();
               }).ok());
  EXPECT_TRUE(s.tables().Pins(profile)->empty());
  EXPECT_TRUE((*s.FindProfile(Key(4))).has_value());
  EXPECT_FALSE((*s.FindProfile(Key(5))).has_value());
}

TEST(Store, CampaignLaunchesKeepTheirUploaders) {
  const std::string path = TempPath("launches.db");
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok());
  Store& s = **store;
  int64_t profile = 0, spring = 0, autumn = 0;
  MeasurementInput m{Collective::kGather, Algorithm::kDefault, 64, {1, 2}};
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 profile = *s.UpsertProfile(Key(4));
                 spring = *s.campaigns().UpsertCampaign(profile, "spring", "h1");
                 autumn = *s.campaigns().UpsertCampaign(profile, "autumn", "h2");
                 if (auto e = s.campaigns().PutMeasurement(spring, 0, m); !e.ok()) return e;
                 if (auto e = s.campaigns().PutMeasurement(spring, 1, m); !e.ok()) return e;
                 if (auto e = s.campaigns().PutMeasurement(autumn, 0, m); !e.ok()) return e;
                 // One campaign, launches from two users; one unknown sender.
                 if (auto e = s.campaigns().PutCampaignLaunch(spring, 0, 1000, 100); !e.ok()) return e;
                 if (auto e = s.campaigns().PutCampaignLaunch(spring, 1, 2000, 200); !e.ok()) return e;
                 return s.campaigns().PutCampaignLaunch(autumn, 0, -1, 7);
               }).ok());
  EXPECT_FALSE(s.campaigns().PutCampaignLaunch(spring, 2, 1, 1).ok()) << "outside a transaction";
  auto launches = s.campaigns().CampaignLaunches(profile);
  ASSERT_TRUE(launches.ok()) << launches.status();
  ASSERT_EQ(launches->size(), 3u);
  EXPECT_EQ((*launches)[0].label, "spring");
  EXPECT_EQ((*launches)[0].host, "h1");
  EXPECT_EQ((*launches)[0].launch, 0);
  EXPECT_EQ((*launches)[0].points, 1);
  EXPECT_EQ((*launches)[0].uid, 1000);
  EXPECT_EQ((*launches)[0].gid, 100);
  EXPECT_FALSE((*launches)[0].uploaded_at.empty());
  EXPECT_EQ((*launches)[1].launch, 1);
  EXPECT_EQ((*launches)[1].uid, 2000);
  EXPECT_EQ((*launches)[1].gid, 200);
  EXPECT_EQ((*launches)[2].label, "autumn");
  EXPECT_EQ((*launches)[2].uid, -1);
  EXPECT_EQ((*launches)[2].gid, -1) << "no gid without a uid";
  EXPECT_EQ(CountRows(path,
                      "campaign_launches WHERE uid IS NULL AND gid IS NULL"),
            1);

  // A later upload of the same launch by another user replaces its sender.
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 return s.campaigns().PutCampaignLaunch(spring, 1, 3000, 300);
               }).ok());
  launches = s.campaigns().CampaignLaunches(profile);
  ASSERT_EQ(launches->size(), 3u);
  EXPECT_EQ((*launches)[1].uid, 3000);
  EXPECT_EQ((*launches)[1].gid, 300);
  EXPECT_TRUE(s.campaigns().CampaignLaunches(profile + 1)->empty());
}

// A database written before migration 9: its launches are listed with no
// sender (NULL), and new uploads record theirs.
TEST(Store, MigrationNineListsOlderLaunchesWithoutASender) {
  const std::string path = TempPath("pre9.db");
  MeasurementInput m{Collective::kGather, Algorithm::kDefault, 64, {1, 2}};
  MeasurementInput other = m;
  other.msg_bytes = 128;
  // Back to schema version 8, as an older colltuned left it.
  const auto ids = StoreThenRewind(
      path, {{0, m}, {0, other}, {2, m}},
      (std::string(kBeforeRegimes) +
       "DROP TABLE campaign_launches; ALTER TABLE measurements "
      "DROP COLUMN p_faster_than_default; ALTER TABLE measurements "
      "DROP COLUMN upper_quartile_s; ALTER TABLE measurements "
      "DROP COLUMN lower_quartile_s; DELETE FROM "
      "schema_migrations WHERE version >= 9").c_str());
  const int64_t profile = ids.first, campaign = ids.second;
  ASSERT_GT(profile, 0);

  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  Store& s = **store;
  EXPECT_EQ(s.schema_version(), Store::LatestSchemaVersion());
  EXPECT_GE(s.schema_version(), 9);
  auto launches = s.campaigns().CampaignLaunches(profile);
  ASSERT_TRUE(launches.ok()) << launches.status();
  ASSERT_EQ(launches->size(), 2u);
  EXPECT_EQ((*launches)[0].launch, 0);
  EXPECT_EQ((*launches)[0].points, 2);
  EXPECT_EQ((*launches)[0].uid, -1);
  EXPECT_EQ((*launches)[0].gid, -1);
  EXPECT_FALSE((*launches)[0].uploaded_at.empty());
  EXPECT_EQ((*launches)[1].launch, 2);
  EXPECT_EQ((*launches)[1].uid, -1);
  EXPECT_EQ(CountRows(path, "campaign_launches WHERE uid IS NULL"), 2);

  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 if (auto e = s.campaigns().PutMeasurement(campaign, 3, m); !e.ok()) return e;
                 return s.campaigns().PutCampaignLaunch(campaign, 3, 0, 0);
               }).ok());
  launches = s.campaigns().CampaignLaunches(profile);
  ASSERT_EQ(launches->size(), 3u);
  EXPECT_EQ((*launches)[2].launch, 3);
  EXPECT_EQ((*launches)[2].uid, 0) << "root is a uid like any other";
  EXPECT_EQ((*launches)[2].gid, 0);
  EXPECT_EQ((*launches)[0].uid, -1) << "older launches stay unknown";
  // Points stored before migration 11 have no upper quartile (they break no
  // ties); the new one has.
  auto points = s.campaigns().LaunchPoints(profile);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 4u);
  // Migration 12 computed every old point's lower quartile from its samples
  // (1 and 2: the faster half is 1).
  for (const LaunchPoint& x : *points) {
    EXPECT_EQ(x.upper_quartile, x.launch == 3 ? 2.0 : 0.0) << x.launch << " " << x.msg_bytes;
    EXPECT_EQ(x.lower_quartile, 1.0) << x.launch << " " << x.msg_bytes;
  }
}

// A database written before migration 12: the migration gives every stored
// point its lower quartile, from its samples, and keeps everything else.
TEST(Store, MigrationTwelveComputesTheLowerQuartilesOfStoredPoints) {
  const std::string path = TempPath("pre12.db");
  MeasurementInput def{Collective::kBcast, Algorithm::kDefault, 64,
                       {8, 7, 6, 5, 4, 3, 2, 1}};
  MeasurementInput alt{Collective::kBcast, Algorithm::kBcastAsAllgatherv, 64,
                       {0.5, 0.9, 0.6, 0.8, 0.7}};
  const int64_t profile =
      StoreThenRewind(path, {{0, def}, {0, alt}},
                      (std::string(kBeforeRegimes) +
                       "ALTER TABLE measurements DROP COLUMN lower_quartile_s; "
                       "DELETE FROM schema_migrations WHERE version >= 12")
                          .c_str())
          .first;
  ASSERT_GT(profile, 0);

  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_GE(store->get()->schema_version(), 12);
  EXPECT_EQ(CountRows(path, "measurements WHERE lower_quartile_s IS NULL"), 0);
  auto points = store->get()->campaigns().LaunchPoints(profile);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u);
  for (const LaunchPoint& x : *points) {
    if (x.algorithm == Algorithm::kDefault) {
      EXPECT_EQ(x.lower_quartile, 2.5);  // faster half 1-4
      EXPECT_EQ(x.upper_quartile, 6.5);
      EXPECT_EQ(x.median, 4.5) << "the rest of the row is kept";
    } else {
      EXPECT_NEAR(x.lower_quartile, 0.6, 1e-6);  // 0.5, 0.6, 0.7 (float32)
      EXPECT_LT(x.p_faster_than_default, 0.01);
    }
  }
}

// A point is (collective, algorithm, size, distribution, regime): the same
// point in two regimes is two rows, each compared with default's series of
// its own regime in its launch; the profile counts the synchronized ones.
TEST(Store, RegimesArePartOfAPointAndItsWithinLaunchTest) {
  const std::string path = TempPath("regimes.db");
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok());
  Store& s = **store;
  const Algorithm kAlt = Algorithm::kBcastAsScatterAllgather;
  MeasurementInput def{Collective::kBcast, Algorithm::kDefault, 64,
                       {2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7}};
  MeasurementInput alt{Collective::kBcast, kAlt, 64,
                       {1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7}};  // faster in sync
  MeasurementInput def_loop = def, alt_loop = alt;
  def_loop.regime = alt_loop.regime = Regime::kLoop;
  def_loop.samples = {1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7};
  alt_loop.samples = {3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6, 3.7};  // slower back to back
  int64_t profile = 0, campaign = 0;
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 profile = *s.UpsertProfile(Key(4));
                 campaign = *s.campaigns().UpsertCampaign(profile, "c", "h");
                 for (const MeasurementInput* m : {&def, &alt, &def_loop, &alt_loop}) {
                   if (auto e = s.campaigns().PutMeasurement(campaign, 0, *m); !e.ok()) return e;
                 }
                 return s.campaigns().PutCampaignLaunch(campaign, 0, -1, -1,
                                            Bit(Regime::kSync) | Bit(Regime::kLoop));
               }).ok());
  auto points = s.campaigns().LaunchPoints(profile);
  ASSERT_TRUE(points.ok()) << points.status();
  ASSERT_EQ(points->size(), 4u);
  for (const LaunchPoint& p : *points) {
    EXPECT_EQ(p.launch_regimes, Bit(Regime::kSync) | Bit(Regime::kLoop));
    if (p.algorithm != kAlt) continue;
    if (p.regime == Regime::kSync) {
      EXPECT_LT(p.p_faster_than_default, 0.01) << "compared with sync default";
    } else {
      EXPECT_GT(p.p_faster_than_default, 0.99) << "compared with loop default";
    }
  }
  auto loop = s.campaigns().Samples(campaign, 0, Collective::kBcast, kAlt, 64, "", Regime::kLoop);
  ASSERT_TRUE(loop.ok());
  EXPECT_EQ(loop->front(), 3.0);
  EXPECT_EQ(s.campaigns().Samples(campaign, 0, Collective::kBcast, kAlt, 64)->front(), 1.0);
  EXPECT_EQ(s.Counts(profile)->measurements, 2) << "points, not series";
  auto launches = s.campaigns().CampaignLaunches(profile);
  ASSERT_EQ(launches->size(), 1u);
  EXPECT_EQ((*launches)[0].points, 2);
  EXPECT_EQ((*launches)[0].regimes, Bit(Regime::kSync) | Bit(Regime::kLoop));
  auto stored = s.campaigns().CampaignPoints(profile, "c");
  ASSERT_EQ(stored->size(), 4u);
  EXPECT_EQ(std::count_if(stored->begin(), stored->end(),
                          [](const StoredPointRow& r) { return r.regime == Regime::kLoop; }),
            2);

  // A rule's evidence per regime is kept with it, refreshed with it, and
  // absent (sync only) where the engine gave none.
  StoredRule r;
  r.rule = Rule{Collective::kBcast, 0, kNoUpperBound, kAlt, 1.5};
  r.regimes = {{Regime::kSync, 1.8, 0.01, true}, {Regime::kLoop, 0.98, 0.7, false}};
  StoredRule plain;
  plain.rule = Rule{Collective::kGather, 0, kNoUpperBound, Algorithm::kDefault, 1};
  ASSERT_TRUE(s.InTransaction([&] { return s.tables().AddTable(profile, {r, plain}, "t", "").status(); })
                  .ok());
  auto table = s.tables().CurrentTable(profile);
  ASSERT_TRUE(table.ok() && table->has_value());
  ASSERT_EQ((*table)->rules.size(), 2u);
  const StoredRule& got = (*table)->rules[0];  // bcast sorts before gather
  ASSERT_EQ(got.regimes.size(), 2u);
  EXPECT_EQ(got.regimes[1].regime, Regime::kLoop);
  EXPECT_DOUBLE_EQ(got.regimes[1].speedup, 0.98);
  EXPECT_FALSE(got.regimes[1].won);
  EXPECT_TRUE(got.regimes[0].won);
  EXPECT_TRUE((*table)->rules[1].regimes.empty());
  EXPECT_EQ(CountRows(path, "decision_rules WHERE regimes IS NULL"), 1);
  r.regimes[1].speedup = 1.01;
  ASSERT_TRUE(s.InTransaction([&] { return s.tables().RefreshEvidence(profile, 1, {r}); }).ok());
  EXPECT_DOUBLE_EQ((*s.tables().CurrentTable(profile))->rules[0].regimes[1].speedup, 1.01);
}

// A database written before migration 13: every stored point becomes a
// synchronized one of a launch that declared sync alone, every stored rule
// has no regime evidence, and the same points can then be stored again in
// other regimes.
// Migration 14 rebuilds profiles, which campaigns, tables and job reports
// refer to: the rewind puts the table back as it was before it.
constexpr char kBeforeLayouts[] =
    "PRAGMA foreign_keys = OFF; "
    "ALTER TABLE campaigns DROP COLUMN held_out; "  // migration 16
    "CREATE TABLE p13 (id INTEGER PRIMARY KEY, cluster TEXT NOT NULL, library TEXT NOT "
    "NULL, library_version TEXT NOT NULL, comm_size INTEGER NOT NULL, nodes INTEGER NOT "
    "NULL, ppn INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, "
    "UNIQUE (cluster, library, library_version, comm_size, nodes, ppn)); "
    "INSERT INTO p13 SELECT id, cluster, library, library_version, comm_size, nodes, "
    "ppn, created_at, updated_at FROM profiles; "
    "DROP TABLE profiles; ALTER TABLE p13 RENAME TO profiles; "
    "DELETE FROM schema_migrations WHERE version >= 14; ";

TEST(Store, MigrationFourteenKeepsProfilesAndWhatReferToThem) {
  const std::string path = TempPath("pre14.db");
  MeasurementInput def{Collective::kReduce, Algorithm::kDefault, 64, {3, 4, 5}};
  const auto ids = StoreThenRewind(path, {{0, def}, {1, def}}, kBeforeLayouts);
  ASSERT_GT(ids.first, 0);
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  Store& s = **store;
  EXPECT_EQ(s.schema_version(), Store::LatestSchemaVersion());
  auto old = s.GetProfile(ids.first);
  ASSERT_TRUE(old.ok() && old->has_value());
  EXPECT_EQ((*old)->key, Key(4)) << "placement and node sizes not recorded";
  EXPECT_EQ(s.Counts(ids.first)->measurements, 2);
  // The same job shape with its placement recorded is a profile of its own;
  // the unrecorded one is found again by its old key.
  ProfileKey placed = Key(4);
  placed.placement = "block";
  int64_t again = 0, other = 0;
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 again = *s.UpsertProfile(Key(4));
                 other = *s.UpsertProfile(placed);
                 return absl::OkStatus();
               }).ok());
  EXPECT_EQ(again, ids.first);
  EXPECT_NE(other, ids.first);
  auto found = s.FindProfile(placed);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->id, other);
  EXPECT_EQ((*found)->key.placement, "block");
}

TEST(Store, MigrationThirteenKeepsEveryStoredPointAsSynchronized) {
  const std::string path = TempPath("pre13.db");
  MeasurementInput def{Collective::kReduce, Algorithm::kDefault, 64, {3, 4, 5}};
  MeasurementInput alt{Collective::kReduce, Algorithm::kReduceAsAllreduce, 64, {1, 2, 3}};
  const auto ids = StoreThenRewind(path, {{0, def}, {0, alt}, {1, def}}, kBeforeRegimes);
  ASSERT_GT(ids.first, 0);
  {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    ASSERT_EQ(sqlite3_exec(db,
                           "INSERT INTO campaign_launches VALUES (1, 0, NULL, NULL, 'x'); "
                           "INSERT INTO decision_tables (id, profile_id, version, "
                           "created_at, reason) VALUES (1, 1, 1, 'x', 'old'); "
                           "INSERT INTO decision_rules (table_id, collective, min_bytes, "
                           "max_bytes, algorithm, speedup) VALUES (1, 'reduce', 0, -1, "
                           "'reduce_as_allreduce', 2.0)",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  Store& s = **store;
  EXPECT_EQ(s.schema_version(), Store::LatestSchemaVersion());
  auto points = s.campaigns().LaunchPoints(ids.first);
  ASSERT_TRUE(points.ok()) << points.status();
  ASSERT_EQ(points->size(), 3u);
  for (const LaunchPoint& p : *points) {
    EXPECT_EQ(p.regime, Regime::kSync);
    EXPECT_EQ(p.launch_regimes, kSyncOnly);
    EXPECT_GT(p.median, 0) << "the rest of the row is kept";
  }
  auto table = s.tables().CurrentTable(ids.first);
  ASSERT_TRUE(table.ok() && table->has_value());
  ASSERT_EQ((*table)->rules.size(), 1u);
  EXPECT_TRUE((*table)->rules[0].regimes.empty());
  MeasurementInput loop = def;
  loop.regime = Regime::kLoop;
  ASSERT_TRUE(s.InTransaction([&] { return s.campaigns().PutMeasurement(ids.second, 0, loop); }).ok());
  EXPECT_EQ(s.campaigns().LaunchPoints(ids.first)->size(), 4u);
  EXPECT_EQ(s.Counts(ids.first)->measurements, 3);
}

// The within-launch comparison with default (migration 10), whichever side
// arrives first, only inside one launch and one point.
TEST(Store, EachPointKnowsWhetherItBeatDefaultInItsLaunch) {
  auto store = Store::Open(TempPath("within.db"));
  ASSERT_TRUE(store.ok());
  Store& s = **store;
  const Algorithm kAlt = Algorithm::kBcastAsScatterAllgather;
  const Algorithm kOther = Algorithm::kBcastAsAllgatherv;
  MeasurementInput def{Collective::kBcast, Algorithm::kDefault, 64,
                       {2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7}};
  MeasurementInput fast{Collective::kBcast, kAlt, 64,
                        {1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7}};
  MeasurementInput slow{Collective::kBcast, kOther, 64,
                        {3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6, 3.7}};
  int64_t profile = 0, c = 0;
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 profile = *s.UpsertProfile(Key(4));
                 c = *s.campaigns().UpsertCampaign(profile, "c", "h");
                 // Launch 0: the algorithms before default; launch 1: after.
                 for (const MeasurementInput* m : {&fast, &slow, &def}) {
                   if (auto e = s.campaigns().PutMeasurement(c, 0, *m); !e.ok()) return e;
                 }
                 for (const MeasurementInput* m : {&def, &fast, &slow}) {
                   if (auto e = s.campaigns().PutMeasurement(c, 1, *m); !e.ok()) return e;
                 }
                 // Launch 2 never measured default; another size neither.
                 if (auto e = s.campaigns().PutMeasurement(c, 2, fast); !e.ok()) return e;
                 MeasurementInput other_size = fast;
                 other_size.msg_bytes = 128;
                 return s.campaigns().PutMeasurement(c, 0, other_size);
               }).ok());
  auto points = s.campaigns().LaunchPoints(profile);
  ASSERT_TRUE(points.ok());
  std::map<std::tuple<int, Algorithm, int64_t>, double> p;
  for (const LaunchPoint& x : *points) p[{x.launch, x.algorithm, x.msg_bytes}] = x.p_faster_than_default;
  ASSERT_EQ(p.size(), 8u);
  // Each point's upper quartile, the median of its slower half: 8 values
  // 1.0-1.7 (stored as float32), the slower half 1.4-1.7.
  for (const LaunchPoint& x : *points) {
    if (x.algorithm == kAlt) EXPECT_NEAR(x.upper_quartile, 1.55, 1e-6);
    if (x.algorithm == kOther) EXPECT_NEAR(x.upper_quartile, 3.55, 1e-6);
    // And its lower quartile, of the faster half 1.0-1.3.
    if (x.algorithm == kAlt) EXPECT_NEAR(x.lower_quartile, 1.15, 1e-6);
    if (x.algorithm == kOther) EXPECT_NEAR(x.lower_quartile, 3.15, 1e-6);
  }
  // Completely separated, 8 against 8: the exact p is 1 / C(16, 8).
  EXPECT_NEAR((p[{0, kAlt, 64}]), 1.0 / 12870, 1e-12);
  EXPECT_DOUBLE_EQ((p[{1, kAlt, 64}]), (p[{0, kAlt, 64}])) << "order does not matter";
  EXPECT_DOUBLE_EQ((p[{0, kOther, 64}]), 1.0);
  EXPECT_DOUBLE_EQ((p[{1, kOther, 64}]), 1.0);
  EXPECT_EQ((p[{0, Algorithm::kDefault, 64}]), -1);
  EXPECT_EQ((p[{2, kAlt, 64}]), -1) << "no default in that launch";
  EXPECT_EQ((p[{0, kAlt, 128}]), -1) << "no default at that size";

  // A relaunched default replaces the comparisons of its launch only.
  def.samples = {0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.96, 0.97};
  ASSERT_TRUE(s.InTransaction([&]() { return s.campaigns().PutMeasurement(c, 0, def); }).ok());
  points = s.campaigns().LaunchPoints(profile);
  for (const LaunchPoint& x : *points) p[{x.launch, x.algorithm, x.msg_bytes}] = x.p_faster_than_default;
  EXPECT_DOUBLE_EQ((p[{0, kAlt, 64}]), 1.0);
  EXPECT_NEAR((p[{1, kAlt, 64}]), 1.0 / 12870, 1e-12);
}

TEST(Store, JobReportsNewestFirstWithTheirTimings) {
  auto store = Store::Open(TempPath("jobs.db"));
  ASSERT_TRUE(store.ok());
  Store& s = **store;
  int64_t profile = 0, other = 0;
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 profile = *s.UpsertProfile(Key(4));
                 other = *s.UpsertProfile(Key(8));
                 for (int j = 0; j < 5; ++j) {
                   JobReportInput r;
                   r.profile_id = j == 4 ? other : profile;
                   r.job_id = "job-" + std::to_string(j);
                   r.run_id = "r";
                   r.table_version = j;
                   JobTimingInput t;
                   t.collective = Collective::kBcast;
                   t.algorithm = Algorithm::kBcastAsAllgatherv;
                   t.min_bytes = 64;
                   t.max_bytes = 127;
                   t.calls = 100 + j;
                   t.timed_calls = 10;
                   t.profile_id = r.profile_id;
                   t.median_seconds = 1e-6 * (j + 1);
                   r.timings = {t, t};
                   r.timings[1].algorithm = Algorithm::kDefault;
                   if (auto e = s.reports().PutJobReport(r); !e.ok()) return e.status();
                 }
                 return absl::OkStatus();
               }).ok());
  auto listed = s.reports().JobReports(profile, 3);
  ASSERT_TRUE(listed.ok()) << listed.status();
  const auto& [reports, total] = *listed;
  EXPECT_EQ(total, 4);  // the fifth belongs to the other profile
  ASSERT_EQ(reports.size(), 3u);
  // Same second: newest first by id.
  EXPECT_EQ(reports[0].job_id, "job-3");
  EXPECT_EQ(reports[2].job_id, "job-1");
  EXPECT_EQ(reports[0].table_version, 3);
  ASSERT_EQ(reports[0].timings.size(), 2u);
  EXPECT_EQ(reports[0].timings[0].calls, 103);
  EXPECT_DOUBLE_EQ(reports[0].timings[0].median_seconds, 4e-6);
  auto counts = s.Counts(profile);
  ASSERT_TRUE(counts.ok());
  EXPECT_FALSE(counts->last_report_at.empty());
  auto none = s.Counts(profile + other + 10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->last_report_at.empty());
}

// Writes `bytes` of garbage at `offset` into the file, as a torn write or a
// stray dd would.
void Scribble(const std::string& path, long offset, size_t bytes) {
  FILE* f = fopen(path.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(fseek(f, offset, SEEK_SET), 0);
  std::string garbage(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) garbage[i] = static_cast<char>(i * 131 + 7);
  ASSERT_EQ(fwrite(garbage.data(), 1, bytes, f), bytes);
  fclose(f);
}

void ExpectCorruptWithRecovery(const absl::Status& s, const std::string& path) {
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  const std::string m(s.message());
  EXPECT_NE(m.find("database " + path + " is corrupt"), std::string::npos) << m;
  EXPECT_NE(m.find("Restore it from a backup, or move it aside"), std::string::npos) << m;
}

TEST(Store, RefusesACorruptHeader) {
  const std::string path = TempPath("corrupt-header.db");
  { ASSERT_TRUE(Store::Open(path).ok()); }  // closed: the WAL is checkpointed
  Scribble(path, 0, 100);
  auto store = Store::Open(path);
  ASSERT_FALSE(store.ok());
  ExpectCorruptWithRecovery(store.status(), path);
}

TEST(Store, RefusesCorruptPages) {
  const std::string path = TempPath("corrupt-pages.db");
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->InTransaction([&] {
      return (*store)->UpsertProfile(ProfileKey{"c", "Open MPI", "4.1", 4, 1, 4}).status();
    }).ok());
  }
  // Pages 3 and 4 of the schema's b-trees (4 KiB pages): the header is fine,
  // only reading the pages shows it.
  Scribble(path, 2 * 4096, 2 * 4096);
  auto store = Store::Open(path);
  ASSERT_FALSE(store.ok());
  ExpectCorruptWithRecovery(store.status(), path);
  // Moved aside, a new database opens in its place.
  ASSERT_EQ(std::rename(path.c_str(), (path + ".broken").c_str()), 0);
  EXPECT_TRUE(Store::Open(path).ok());
}

TEST(Store, RefusesADatabaseFromTheFuture) {
  const std::string path = TempPath("future.db");
  { ASSERT_TRUE(Store::Open(path).ok()); }
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db,
               "INSERT INTO schema_migrations VALUES (999, 'future', 'now')",
               nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto store = Store::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(std::string(store.status().message()).find("newer"), std::string::npos);
}

TEST(Store, UnopenablePathIsAClearError) {
  auto store = Store::Open("/nonexistent-dir/x/colltune.db");
  ASSERT_FALSE(store.ok());
  EXPECT_NE(std::string(store.status().message()).find("/nonexistent-dir/x"),
            std::string::npos);
}

}  // namespace
}  // namespace colltune::db

namespace colltune::db {
namespace {

// OnlinePoints against its definition, computed here from what was stored:
// per profile and (collective, bucket, algorithm) cell, the newest `window`
// timings by report among those with at least `min_timed` timed calls,
// ordered by cell and report. Many reports, replaced runs, two profiles.
TEST(Store, OnlinePointsKeepTheNewestWindowPerCell) {
  auto store = Store::Open(TempPath("window.db"));
  ASSERT_TRUE(store.ok());
  Store& s = **store;
  struct Stored {
    int64_t profile, report;
    JobTimingInput t;
    std::string job_id;
  };
  std::map<std::pair<std::string, int64_t>, std::vector<Stored>> by_run;  // (job/run, profile)
  int64_t profiles[2] = {0, 0};
  const Collective colls[3] = {Collective::kBcast, Collective::kAllreduce, Collective::kGather};
  const Algorithm algs[3][2] = {{Algorithm::kDefault, Algorithm::kBcastAsAllgatherv},
                                {Algorithm::kDefault, Algorithm::kAllreduceAsReduceBcast},
                                {Algorithm::kDefault, Algorithm::kGatherAsGatherv}};
  std::mt19937 rng(7);
  ASSERT_TRUE(s.InTransaction([&]() -> absl::Status {
                 profiles[0] = *s.UpsertProfile(Key(4));
                 profiles[1] = *s.UpsertProfile(Key(8));
                 for (int j = 0; j < 400; ++j) {
                   JobReportInput r;
                   r.profile_id = profiles[rng() % 2];
                   // Some runs report twice: the second replaces the first.
                   r.job_id = "job-" + std::to_string(rng() % 300);
                   r.run_id = "r";
                   r.uid = rng() % 3;
                   const int cells = 1 + rng() % 4;
                   for (int k = 0; k < cells; ++k) {
                     const int c = rng() % 3, b = rng() % 4, a = rng() % 2;
                     JobTimingInput t;
                     t.collective = colls[c];
                     t.algorithm = algs[c][a];
                     t.min_bytes = int64_t{1} << (4 + 2 * b);
                     t.max_bytes = (int64_t{2} << (4 + 2 * b)) - 1;
                     bool taken = false;
                     for (const auto& o : r.timings) {
                       taken = taken || (o.collective == t.collective &&
                                         o.min_bytes == t.min_bytes && o.algorithm == t.algorithm);
                     }
                     if (taken) continue;
                     t.calls = 1000;
                     t.timed_calls = 5 + rng() % 20;
                     t.profile_id = r.profile_id;
                     t.median_seconds = 1e-6 * (1 + rng() % 100);
                     r.timings.push_back(t);
                   }
                   auto put = s.reports().PutJobReport(r);
                   if (!put.ok()) return put.status();
                   auto& runs = by_run[{r.job_id, r.profile_id}];
                   if (put->second) runs.clear();  // replaced
                   for (const auto& t : r.timings) runs.push_back({r.profile_id, put->first, t, r.job_id});
                 }
                 return absl::OkStatus();
               }).ok());
  const int window = 5;
  const int64_t min_timed = 12;
  for (int64_t profile : profiles) {
    std::vector<Stored> rows;
    for (const auto& [key, runs] : by_run) {
      for (const auto& st : runs) {
        if (st.profile == profile && st.t.timed_calls >= min_timed) rows.push_back(st);
      }
    }
    auto cell_less = [](const Stored& a, const Stored& b) {
      const std::string ca(InfoOf(a.t.collective).name), cb(InfoOf(b.t.collective).name);
      const std::string aa(InfoOf(a.t.algorithm).name), ab(InfoOf(b.t.algorithm).name);
      return std::tie(ca, a.t.min_bytes, aa, a.report) < std::tie(cb, b.t.min_bytes, ab, b.report);
    };
    std::sort(rows.begin(), rows.end(), cell_less);
    std::vector<Stored> expected;
    for (size_t i = 0; i < rows.size();) {
      size_t end = i;
      while (end < rows.size() && rows[end].t.collective == rows[i].t.collective &&
             rows[end].t.min_bytes == rows[i].t.min_bytes &&
             rows[end].t.algorithm == rows[i].t.algorithm) {
        ++end;
      }
      for (size_t k = end - std::min<size_t>(end - i, window); k < end; ++k) {
        expected.push_back(rows[k]);
      }
      i = end;
    }
    auto got = s.reports().OnlinePoints(profile, window, min_timed);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), expected.size());
    ASSERT_GT(expected.size(), 20u);
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ((*got)[i].report_id, expected[i].report) << i;
      EXPECT_EQ((*got)[i].collective, expected[i].t.collective) << i;
      EXPECT_EQ((*got)[i].algorithm, expected[i].t.algorithm) << i;
      EXPECT_EQ((*got)[i].min_bytes, expected[i].t.min_bytes) << i;
      EXPECT_EQ((*got)[i].timed_calls, expected[i].t.timed_calls) << i;
      EXPECT_EQ((*got)[i].job_id, expected[i].job_id) << i;
    }
  }
}

}  // namespace
}  // namespace colltune::db
