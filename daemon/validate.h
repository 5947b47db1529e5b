// Checks every request against the contract's limits (common/limits.h)
// before anything is stored. An error names the offending field, e.g.
// "measurements[3].samples[7] is NaN"; a request with any error is rejected
// whole.
#ifndef COLLTUNE_DAEMON_VALIDATE_H_
#define COLLTUNE_DAEMON_VALIDATE_H_

#include "absl/status/status.h"
#include "daemon/metrics.h"
#include "proto/colltune.pb.h"

namespace colltune::daemon {

absl::Status ValidateGetTable(const v1::GetTableRequest& request);
absl::Status ValidateUpload(const v1::UploadMeasurementsRequest& request);
// On an error, `why` (if given) tells which part of the report is wrong.
absl::Status ValidateReport(const v1::ReportJobRequest& request,
                            ReportRejection* why = nullptr);
absl::Status ValidateListProfiles(const v1::ListProfilesRequest& request);
absl::Status ValidateGetCampaign(const v1::GetCampaignRequest& request);
absl::Status ValidatePin(const v1::PinRequest& request);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_VALIDATE_H_
