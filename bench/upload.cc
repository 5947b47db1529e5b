#include "bench/upload.h"

#include <cstdio>

#include "auth/client_auth.h"
#include "client/client.h"
#include "common/limits.h"

namespace colltune::bench {

absl::Status Upload(const UploadTarget& target,
                    const v1::UploadMeasurementsRequest& base,
                    const std::vector<v1::Measurement>& points,
                    int64_t* table_version, int64_t* profile_id) {
  auto stub = client::Connect(target.server);
  size_t next = 0;
  do {
    v1::UploadMeasurementsRequest request = base;
    int64_t samples = 0;
    while (next < points.size() &&
           request.measurements_size() < limits::kMaxMeasurementsPerUpload &&
           samples + points[next].samples_size() <= limits::kMaxSamplesPerUpload) {
      samples += points[next].samples_size();
      *request.add_measurements() = points[next++];
    }
    if (request.measurements_size() == 0 && next < points.size()) {
      return absl::InvalidArgumentError("a point has too many samples to upload");
    }
    if (next < points.size()) request.set_partial(true);
    v1::UploadMeasurementsResponse response;
    auto rpc = client::WithDeadline(std::chrono::milliseconds(target.timeout_ms));
    // Bound to this request; required by a daemon with --auth munge.
    if (absl::Status m = auth::AttachMunge(rpc.get(), auth::BindingFor(request));
        !m.ok()) {
      fprintf(stderr, "colltune-bench: upload without a MUNGE credential: %s\n",
              std::string(m.message()).c_str());
    }
    grpc::Status s = stub->UploadMeasurements(rpc.get(), request, &response);
    if (!s.ok()) return client::FromGrpc(s, target.server);
    *table_version = response.table_version();
    if (profile_id != nullptr) *profile_id = response.profile_id();
  } while (next < points.size());
  return absl::OkStatus();
}

}  // namespace colltune::bench
