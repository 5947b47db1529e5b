// Sends a launch's measurements to colltuned, split into requests that stay
// within the contract's limits.
#ifndef COLLTUNE_BENCH_UPLOAD_H_
#define COLLTUNE_BENCH_UPLOAD_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/colltune.pb.h"

namespace colltune::bench {

struct UploadTarget {
  std::string server;
  int timeout_ms = 10000;
};

// `base` carries context, campaign, launch, host and whether the launch goes
// on (partial); `points` the measured points, sent in as many requests as the
// limits need (all but the last partial). Returns the first error;
// *table_version gets the profile's table version after the last request,
// and *profile_id (if not null) its profile.
absl::Status Upload(const UploadTarget& target,
                    const v1::UploadMeasurementsRequest& base,
                    const std::vector<v1::Measurement>& points,
                    int64_t* table_version, int64_t* profile_id = nullptr);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_UPLOAD_H_
