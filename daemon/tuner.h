// What colltuned does, independent of how requests arrive: the gRPC service
// (service.h) is a thin adapter over it. Requests are validated first
// (validate.h); every write is one store transaction. Thread-safe: calls are
// serialized on the store.
#ifndef COLLTUNE_DAEMON_TUNER_H_
#define COLLTUNE_DAEMON_TUNER_H_

#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "daemon/engine.h"
#include "db/store.h"
#include "proto/colltune.pb.h"

namespace colltune::daemon {

struct TunerOptions {
  std::string cluster = "default";  // for requests that name none
  EngineOptions engine;
};

class Tuner {
 public:
  Tuner(db::Store* store, TunerOptions options)
      : store_(store), options_(std::move(options)) {}

  absl::StatusOr<v1::GetTableResponse> GetTable(const v1::GetTableRequest& r);
  absl::StatusOr<v1::UploadMeasurementsResponse> UploadMeasurements(
      const v1::UploadMeasurementsRequest& r);
  absl::StatusOr<v1::ReportJobResponse> ReportJob(const v1::ReportJobRequest& r);
  absl::StatusOr<v1::ListProfilesResponse> ListProfiles(
      const v1::ListProfilesRequest& r);
  absl::StatusOr<v1::GetProfileResponse> GetProfile(
      const v1::GetProfileRequest& r);

 private:
  db::ProfileKey KeyOf(const v1::Context& c) const;
  absl::StatusOr<v1::ProfileSummary> Summarize(const db::Profile& p);
  // Recomputes the profile's rules; stores a new version if they changed.
  absl::StatusOr<std::pair<int64_t, bool>> Retune(int64_t profile_id,
                                                  const std::string& reason);

  std::mutex mu_;
  db::Store* store_;
  const TunerOptions options_;
};

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_TUNER_H_
