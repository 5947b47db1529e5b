// colltune's persistent state: profiles, campaigns, raw measurements,
// versioned decision tables and job reports, in one SQLite file (WAL mode).
//
// Open() creates the schema on first use and applies pending migrations
// (db/migrations/, recorded in schema_migrations). Every write happens inside
// InTransaction(): write methods called outside one fail, so a request is
// stored whole or not at all. A Store is not thread-safe; the daemon
// serializes access to it.
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
#include "common/catalog.h"
#include "common/job_context.h"
#include "common/regime.h"
#include "common/table.h"
#include "db/sqlite.h"

namespace colltune::db {

// A profile is the measurements of one job context.
using ProfileKey = JobContext;

struct Profile {
  int64_t id = 0;
  ProfileKey key;
  std::string created_at;
  std::string updated_at;
};

struct ProfileCounts {
  int campaigns = 0;
  int launches = 0;      // distinct (campaign, launch) pairs
  int measurements = 0;  // stored points over all launches
  int job_reports = 0;
  std::string last_report_at;  // the newest job report's arrival; "" if none
};

// One (collective, algorithm, size) point of one launch, as uploaded.
struct MeasurementInput {
  Collective collective = Collective::kAllgather;
  Algorithm algorithm = Algorithm::kDefault;
  int64_t msg_bytes = 0;
  std::vector<double> samples;  // seconds per repetition
  std::string problem;          // irregular collectives: the distribution
  Regime regime = Regime::kSync;
};

// The statistics of one stored point of one launch.
struct LaunchPoint {
  int64_t campaign_id = 0;
  int launch = 0;
  Collective collective = Collective::kAllgather;
  Algorithm algorithm = Algorithm::kDefault;
  int64_t msg_bytes = 0;
  int64_t nrep = 0;
  double median = 0, mean = 0, min = 0, max = 0, stddev = 0;
  std::string problem;  // irregular collectives: the distribution
  // One-sided Mann-Whitney p that this algorithm's repetitions in this launch
  // are faster than default's there; -1 when unknown (default itself, or
  // default not measured in this launch). Kept up to date by PutMeasurement.
  double p_faster_than_default = -1;
  // The upper quartile of the launch's repetitions (migration 11); 0 when
  // stored before it.
  double upper_quartile = 0;
  // The lower quartile of the launch's repetitions (migration 12, which
  // computed it for the points stored before it); 0 when it has no samples.
  double lower_quartile = 0;
  Regime regime = Regime::kSync;  // migration 13: sync for points before it
  // The regimes its launch declared it times every point in (sync alone for
  // launches stored before migration 13).
  RegimeSet launch_regimes = kSyncOnly;
};

// One launch of one campaign of a profile, with who uploaded it.
struct CampaignLaunchRow {
  int64_t campaign_id = 0;
  std::string label, host;
  int launch = 0;
  int64_t points = 0;          // stored points of the launch
  int64_t uid = -1, gid = -1;  // -1: unknown (not identified, or stored
                               // before migration 9)
  std::string uploaded_at;
  RegimeSet regimes = kSyncOnly;  // the regimes the launch declared
};

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
  std::vector<StoredRule> rules;  // sorted by (collective, min_bytes)

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

struct StoredPointRow {
  int launch = 0;
  Collective collective = Collective::kAllgather;
  Algorithm algorithm = Algorithm::kDefault;
  int64_t msg_bytes = 0;
  int64_t samples = 0;
  std::string problem;  // irregular collectives: the distribution
  Regime regime = Regime::kSync;
};

// One entry of a job report (proto JobTiming), resolved: `profile_id` is the
// profile the evidence belongs to, 0 if none could take it.
struct JobTimingInput {
  Collective collective = Collective::kAllgather;
  Algorithm algorithm = Algorithm::kDefault;
  int64_t min_bytes = 0;
  int64_t max_bytes = 0;
  int64_t calls = 0;
  int64_t timed_calls = 0;
  double total_seconds = 0;
  int64_t profile_id = 0;
  int comm_size = 0;
  int64_t explored_calls = 0;
  int first_bin = 0;
  std::vector<uint64_t> bins;
  double median_seconds = 0;  // of the histogram
};

// Calls of a counted (not tuned) collective in one size bucket (proto
// CountedCalls), validated.
struct CountedCallsRow {
  std::string kind, collective;
  int64_t min_bytes = 0, max_bytes = 0;
  int64_t calls = 0;
};

struct JobReportInput {
  int64_t profile_id = 0;  // the job's own context
  std::string job_id;
  std::string run_id;
  int64_t table_version = 0;
  std::string source = "online";
  bool final = true;
  int ranks = 1;
  // Who sent it (colltuned --auth munge), -1: not authenticated.
  int64_t uid = -1, gid = -1;
  std::string slurm_job_id;  // empty: not a Slurm job
  std::vector<JobTimingInput> timings;
  std::vector<CountedCallsRow> counted;
};

// One job's median for one (collective, size bucket, algorithm) of a profile.
struct OnlinePoint {
  Collective collective = Collective::kAllgather;
  Algorithm algorithm = Algorithm::kDefault;
  int64_t min_bytes = 0, max_bytes = 0;
  int64_t report_id = 0;  // one per run
  std::string job_id;     // runs of one job share it
  int64_t uid = -1;       // the sender munged vouched for, -1: unknown
  double median_seconds = 0;
  int64_t timed_calls = 0;
  int64_t explored_calls = 0;
};

// One stored job report with its timings (those attributed to any profile).
struct JobReportRow {
  int64_t id = 0;
  std::string job_id, run_id, received_at, source;
  int64_t table_version = 0;
  bool final = true;
  int ranks = 1;
  int64_t uid = -1, gid = -1;  // -1: not authenticated
  std::string slurm_job_id;
  struct Timing {
    Collective collective = Collective::kAllgather;
    Algorithm algorithm = Algorithm::kDefault;
    int64_t min_bytes = 0, max_bytes = 0;
    int64_t calls = 0, timed_calls = 0, explored_calls = 0;
    double median_seconds = 0;
  };
  std::vector<Timing> timings;
  std::vector<CountedCallsRow> counted;  // by collective, then size
};

class Store {
 public:
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& path);

  // The schema version after Open(): the number of the last migration.
  int schema_version() const { return schema_version_; }
  // True when the file could not be written at Open() (a read-only file
  // system): reads are served, every transaction is refused.
  bool read_only() const { return read_only_; }
  static int LatestSchemaVersion();

  // Runs `body` in one IMMEDIATE transaction: committed if it returns OK,
  // rolled back on any error.
  absl::Status InTransaction(const std::function<absl::Status()>& body);

  // Writes (inside InTransaction only).
  absl::StatusOr<int64_t> UpsertProfile(const ProfileKey& key);
  absl::StatusOr<int64_t> UpsertCampaign(int64_t profile_id,
                                         std::string_view label,
                                         std::string_view host);
  // Replaces the point if the launch already stored it, and completes the
  // within-launch comparison with default (LaunchPoint::p_faster_than_default)
  // of the point's algorithms in that launch.
  absl::Status PutMeasurement(int64_t campaign_id, int launch,
                              const MeasurementInput& m);
  // Stores `rules` as the profile's next table version; returns the version.
  absl::StatusOr<int64_t> AddTable(int64_t profile_id,
                                   const std::vector<StoredRule>& rules,
                                   std::string_view reason,
                                   std::string_view changes);
  // Updates the evidence (speedup, p-value, launches, campaigns, pinned) of
  // a stored version's rules, matched by (collective, min_bytes), leaving its
  // decisions as they are.
  absl::Status RefreshEvidence(int64_t profile_id, int64_t version,
                               const std::vector<StoredRule>& rules);
  absl::StatusOr<int64_t> AddPin(int64_t profile_id, const PinRow& pin);
  // False if the profile has no such pin.
  absl::StatusOr<bool> DeletePin(int64_t profile_id, int64_t pin_id);
  // Records who uploaded (points of) the campaign's launch: uid/gid -1 for
  // unknown, and the regimes the launch declared. Replaces the sender and
  // regimes an earlier upload of the launch recorded.
  absl::Status PutCampaignLaunch(int64_t campaign_id, int launch, int64_t uid,
                                 int64_t gid, RegimeSet regimes = kSyncOnly);
  // Stores a job report, replacing an earlier one of the same (profile,
  // job_id, run_id). Returns (report id, whether one was replaced).
  absl::StatusOr<std::pair<int64_t, bool>> PutJobReport(const JobReportInput& r);

  // Reads.
  absl::StatusOr<std::vector<Profile>> Profiles(std::string_view cluster = "",
                                                std::string_view library = "");
  absl::StatusOr<std::optional<Profile>> GetProfile(int64_t id);
  absl::StatusOr<ProfileCounts> Counts(int64_t profile_id);
  // Counts' parts: campaigns, launches and measurements; job reports.
  absl::StatusOr<ProfileCounts> CampaignCounts(int64_t profile_id);
  absl::StatusOr<ProfileCounts> ReportCounts(int64_t profile_id);
  absl::StatusOr<std::vector<LaunchPoint>> LaunchPoints(int64_t profile_id);
  absl::StatusOr<std::optional<TableVersion>> CurrentTable(int64_t profile_id);
  absl::StatusOr<std::optional<TableVersion>> TableAt(int64_t profile_id,
                                                      int64_t version);
  // Newest first.
  absl::StatusOr<std::vector<TableVersionInfo>> TableHistory(int64_t profile_id);
  absl::StatusOr<std::vector<PinRow>> Pins(int64_t profile_id);
  absl::StatusOr<std::optional<Profile>> FindProfile(const ProfileKey& key);
  // Online evidence of the profile: for each (collective, bucket, algorithm)
  // the newest `window` runs with at least `min_timed` timed calls.
  absl::StatusOr<std::vector<OnlinePoint>> OnlinePoints(int64_t profile_id,
                                                        int window,
                                                        int64_t min_timed);
  // Points stored by the campaign labelled `label` of the profile.
  absl::StatusOr<std::vector<StoredPointRow>> CampaignPoints(
      int64_t profile_id, std::string_view label);
  // campaign id -> label, for the profile's campaigns.
  absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> Campaigns(
      int64_t profile_id);
  // Every launch of the profile's campaigns, by campaign id then launch.
  absl::StatusOr<std::vector<CampaignLaunchRow>> CampaignLaunches(
      int64_t profile_id);
  // The profile's newest `limit` job reports (its own context's), newest
  // first, and how many it has in all.
  absl::StatusOr<std::pair<std::vector<JobReportRow>, int>> JobReports(
      int64_t profile_id, int limit);
  // Raw samples of one stored point (for recomputation and the web view).
  absl::StatusOr<std::vector<double>> Samples(int64_t campaign_id, int launch,
                                              Collective c, Algorithm a,
                                              int64_t msg_bytes,
                                              std::string_view problem = "",
                                              Regime regime = Regime::kSync);

 private:
  explicit Store(std::unique_ptr<Database> db) : db_(std::move(db)) {}
  absl::Status Migrate();
  absl::Status BackfillLowerQuartiles();
  absl::Status CheckIntegrity();
  absl::Status ReadSchemaVersion();
  absl::StatusOr<std::optional<TableVersion>> LoadTable(int64_t table_id);
  absl::Status UpdateWithinLaunchTests(int64_t campaign_id, int launch,
                                       const MeasurementInput& m);
  absl::Status RequireTransaction() const;

  std::unique_ptr<Database> db_;
  int schema_version_ = 0;
  bool in_transaction_ = false;
  bool read_only_ = false;
  std::string path_;
};

}  // namespace colltune::db

#endif  // COLLTUNE_DB_STORE_H_
