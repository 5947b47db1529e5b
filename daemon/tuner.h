// What colltuned does, independent of how requests arrive: the gRPC service
// (service.h) and the web API are thin adapters over it. Requests are
// validated first (validate.h); every write is one store transaction; the
// caller has already checked the admin token for RollbackTable, Pin and
// Unpin. Thread-safe: calls are serialized on the store.
#ifndef COLLTUNE_DAEMON_TUNER_H_
#define COLLTUNE_DAEMON_TUNER_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "auth/uploader.h"
#include "daemon/engine.h"
#include "daemon/metrics.h"
#include "daemon/observed.h"
#include "db/store.h"
#include "proto/colltune.pb.h"

namespace colltune::daemon {

using auth::Uploader;

struct TunerOptions {
  std::string cluster = "default";  // for requests that name none
  EngineOptions engine;
  // Online evidence: the newest jobs kept per (collective, size bucket,
  // algorithm), and the timed calls a job needs in a cell to count there
  // (fewer make a median that one outlier moves).
  int online_window = 30;
  int64_t min_job_samples = 5;
  // Every table served is marked reproducible: jobs explore nothing, so
  // their results repeat bit for bit while the table stays the same.
  bool reproducible = false;
};

class Tuner {
 public:
  // `metrics` (may be null) counts the job reports stored and refused; it
  // must outlive the Tuner.
  Tuner(db::Store* store, TunerOptions options, Metrics* metrics = nullptr)
      : store_(store), options_(std::move(options)), metrics_(metrics) {}
  Tuner(const Tuner&) = delete;
  Tuner& operator=(const Tuner&) = delete;

  absl::StatusOr<v1::GetTableResponse> GetTable(const v1::GetTableRequest& r);
  // `from`: the sender (uid -1: unknown), recorded with the launch.
  absl::StatusOr<v1::UploadMeasurementsResponse> UploadMeasurements(
      const v1::UploadMeasurementsRequest& r, const Uploader& from = {});
  // `from`: the sender munged vouched for (uid -1: not authenticated).
  absl::StatusOr<v1::ReportJobResponse> ReportJob(const v1::ReportJobRequest& r,
                                                  const Uploader& from = {});
  absl::StatusOr<v1::ListProfilesResponse> ListProfiles(
      const v1::ListProfilesRequest& r);
  absl::StatusOr<v1::GetProfileResponse> GetProfile(
      const v1::GetProfileRequest& r);
  absl::StatusOr<v1::GetTableHistoryResponse> GetTableHistory(
      const v1::GetTableHistoryRequest& r);
  absl::StatusOr<v1::GetTableVersionResponse> GetTableVersion(
      const v1::GetTableVersionRequest& r);
  absl::StatusOr<v1::GetViolationsResponse> GetViolations(
      const v1::GetViolationsRequest& r);
  absl::StatusOr<v1::GetCampaignResponse> GetCampaign(
      const v1::GetCampaignRequest& r);
  absl::StatusOr<v1::ListPinsResponse> ListPins(const v1::ListPinsRequest& r);
  absl::StatusOr<v1::ListJobReportsResponse> ListJobReports(
      const v1::ListJobReportsRequest& r);

  // Administrative.
  absl::StatusOr<v1::RollbackTableResponse> RollbackTable(
      const v1::RollbackTableRequest& r);
  absl::StatusOr<v1::PinResponse> Pin(const v1::PinRequest& r);
  absl::StatusOr<v1::UnpinResponse> Unpin(const v1::UnpinRequest& r);

  // For GET /metrics: every profile's current table version (the most
  // recently updated kMaxContextsExported of them) and the open violations
  // over all profiles, by kind.
  absl::StatusOr<TunerState> State();

 private:
  db::ProfileKey KeyOf(const v1::Context& c) const;
  absl::Status RequireProfile(int64_t id);
  absl::StatusOr<v1::ProfileSummary> Summarize(const db::Profile& p);
  // The profile's campaign points, without those of native algorithms that
  // the quirks table says are wrong for the calls campaigns time (every
  // call, or the profile's size): their timings judge nothing.
  absl::StatusOr<const std::vector<LaunchMedian>*> Medians(int64_t profile_id);
  // The profile's campaign violations by kind.
  absl::StatusOr<const std::map<std::string, int64_t>*> ViolationCounts(int64_t profile_id);
  // Appends the quirks table's rows for the profile's library and version
  // as "defect" violations.
  absl::Status AddDefects(int64_t profile_id, v1::GetViolationsResponse* response);
  // Recomputes the profile's decisions; stores a new version if they
  // changed. Returns (current version, changed).
  absl::StatusOr<std::pair<int64_t, bool>> Retune(int64_t profile_id,
                                                  const std::string& reason);
  absl::StatusOr<std::vector<PinnedRange>> PinsOf(int64_t profile_id);
  // The profile's current table as Retune last saw it (current_tables_).
  absl::StatusOr<const std::optional<db::TableVersion>*> CurrentTable(int64_t profile_id);
  // store_->InTransaction(body), forgetting on failure what the body cached.
  absl::Status Write(const std::function<absl::Status()>& body);
  // Stores `decisions` as the profile's next version unless they decide what
  // `current` does. Returns (current version, changed).
  absl::StatusOr<std::pair<int64_t, bool>> StoreIfChanged(
      int64_t profile_id, const std::optional<db::TableVersion>& current,
      const std::vector<Decision>& decisions, const std::string& reason);

  absl::StatusOr<v1::GetTableResponse> ComputeTable(const v1::GetTableRequest& r);

  // A job report waiting for its turn in ReportJob's group commit.
  struct PendingReport {
    const v1::ReportJobRequest* request = nullptr;
    const Uploader* from = nullptr;
    absl::StatusOr<v1::ReportJobResponse> result{absl::UnknownError("not stored")};
    bool done = false;  // stored or refused by another sender's commit
    std::condition_variable cv;
  };
  // At most this many reports in one transaction.
  static constexpr size_t kMaxReportsPerCommit = 64;
  // Stores `batch` in one transaction (each alone if that fails), sets each
  // one's result and counts it in the metrics. Takes mu_.
  void StoreReports(const std::vector<PendingReport*>& batch);
  // One transaction: every report of `batch`, then one retune per profile.
  absl::Status CommitReports(const std::vector<PendingReport*>& batch);
  // Stores one report (inside a transaction); `targets` gets the profiles
  // its evidence belongs to.
  absl::Status StoreReport(const v1::ReportJobRequest& r, const Uploader& from,
                           v1::ReportJobResponse* response, std::set<int64_t>* targets);

  std::mutex mu_;
  // ReportJob's queue of senders (queue_mu_ guards it and reports' `done`;
  // never held with mu_).
  std::mutex queue_mu_;
  std::deque<PendingReport*> reports_;
  db::Store* store_;
  const TunerOptions options_;
  Metrics* metrics_;
  // What the tuner derives from a profile's campaign points, kept between
  // requests: only UploadMeasurements writes those points, and it empties
  // this (before and after its transaction, whose retunes fill it with what
  // might not commit). Each part is filled when first needed. Without it a
  // job report, a page of the web view or a scrape read and judged tens of
  // thousands of points each time.
  struct CampaignDecided {
    std::vector<Rule> current;        // the current rules they were decided against
    std::vector<Decision> decisions;  // CampaignDecisions()
  };
  struct FromCampaigns {
    std::optional<std::vector<LaunchMedian>> medians;  // Medians()
    // A job report changes the current rules only now and then: it
    // recomputes only the online part while they stay the same.
    std::optional<CampaignDecided> decided;
    std::optional<std::map<std::string, int64_t>> violations;  // by kind
    std::optional<db::ProfileCounts> counts;  // campaigns, launches, measurements
    std::optional<std::map<int64_t, std::string>> labels;  // campaign id -> label
  };
  std::map<int64_t, FromCampaigns> from_campaigns_;
  // Each profile's current table, as retunes read and write it: a job
  // report's retune compares against it and usually refreshes only its
  // evidence; the profile list reads its version. Only the tuner writes
  // tables; emptied by uploads and by a write that fails.
  std::map<int64_t, std::optional<db::TableVersion>> current_tables_;

  // GetTable's answers by request (its serialized bytes), valid while
  // TablesGeneration() is the one they were computed at. Every job fetches
  // its table at MPI_Init, many with the same context, and a hit needs
  // neither mu_ (which ingest holds) nor SQLite. At most kMaxCachedTables
  // entries; the cache is emptied when full.
  //
  // Writes bump a generation (under mu_, before they commit) only when
  // they change what GetTable serves: decisions_generation_ when a table
  // version may change (TablesChanged()), evidence_generation_ then and
  // when only a version's evidence changes. A job's fetch asks for the
  // decisions only, so a stream of job reports, which refresh evidence
  // and seldom change a decision, leaves its answer cached.
  static constexpr size_t kMaxCachedTables = 256;
  struct CachedTable {
    uint64_t generation;
    v1::GetTableResponse response;
  };
  void TablesChanged();
  uint64_t TablesGeneration(const v1::GetTableRequest& r) const;
  std::atomic<uint64_t> decisions_generation_{0};
  std::atomic<uint64_t> evidence_generation_{0};
  std::mutex table_cache_mu_;
  std::map<std::string, CachedTable> table_cache_;
};

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_TUNER_H_
