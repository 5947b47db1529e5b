// Campaigns of a profile: their launches, who uploaded them, and the raw
// repetitions of every point measured (a part of the Store, db/store.h).
#ifndef COLLTUNE_DB_CAMPAIGN_STORE_H_
#define COLLTUNE_DB_CAMPAIGN_STORE_H_

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
#include "db/connection.h"
#include "db/profile.h"

namespace colltune::db {

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
  bool held_out = false;  // migration 16: its campaign is a validation
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
  bool held_out = false;          // a validation's launch (migration 16)
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

class CampaignStore {
 public:
  explicit CampaignStore(Connection* c) : c_(c) {}

  // The campaign's id, made if new. A label is a campaign's or a held-out
  // validation's (migration 16) for good: FailedPrecondition where it is
  // stored as the other.
  absl::StatusOr<int64_t> UpsertCampaign(int64_t profile_id,
                                         std::string_view label,
                                         std::string_view host, bool held_out = false);
  // Replaces the point if the launch already stored it, and completes the
  // within-launch comparison with default (LaunchPoint::p_faster_than_default)
  // of the point's algorithms in that launch.
  absl::Status PutMeasurement(int64_t campaign_id, int launch,
                              const MeasurementInput& m);
  // Records who uploaded (points of) the campaign's launch: uid/gid -1 for
  // unknown, and the regimes the launch declared. Replaces the sender and
  // regimes an earlier upload of the launch recorded.
  absl::Status PutCampaignLaunch(int64_t campaign_id, int launch, int64_t uid,
                                 int64_t gid, RegimeSet regimes = kSyncOnly);
  // The profile's campaigns, launches and stored points (job_reports: 0).
  absl::StatusOr<ProfileCounts> Counts(int64_t profile_id);
  absl::StatusOr<std::vector<LaunchPoint>> LaunchPoints(int64_t profile_id);
  // Points stored by the campaign labelled `label` of the profile.
  absl::StatusOr<std::vector<StoredPointRow>> CampaignPoints(
      int64_t profile_id, std::string_view label);
  // campaign id -> label, for the profile's campaigns.
  absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> Campaigns(
      int64_t profile_id);
  // Every launch of the profile's campaigns, by campaign id then launch.
  absl::StatusOr<std::vector<CampaignLaunchRow>> CampaignLaunches(
      int64_t profile_id);
  // Raw samples of one stored point (for recomputation and the web view).
  absl::StatusOr<std::vector<double>> Samples(int64_t campaign_id, int launch,
                                              Collective c, Algorithm a,
                                              int64_t msg_bytes,
                                              std::string_view problem = "",
                                              Regime regime = Regime::kSync);

 private:
  absl::Status UpdateWithinLaunchTests(int64_t campaign_id, int launch,
                                       const MeasurementInput& m);
  Connection* c_;
};

}  // namespace colltune::db

#endif  // COLLTUNE_DB_CAMPAIGN_STORE_H_
