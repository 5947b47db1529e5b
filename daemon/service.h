// The gRPC face of colltuned: each RPC hands its request to the Tuner and
// maps the outcome to a gRPC status (validation errors are
// INVALID_ARGUMENT, with the message naming the field).
#ifndef COLLTUNE_DAEMON_SERVICE_H_
#define COLLTUNE_DAEMON_SERVICE_H_

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "daemon/tuner.h"
#include "proto/colltune.grpc.pb.h"

namespace colltune::daemon {

class TuningService final : public v1::Tuning::Service {
 public:
  explicit TuningService(Tuner* tuner) : tuner_(tuner) {}

  grpc::Status GetTable(grpc::ServerContext*, const v1::GetTableRequest* r,
                        v1::GetTableResponse* out) override;
  grpc::Status UploadMeasurements(grpc::ServerContext*,
                                  const v1::UploadMeasurementsRequest* r,
                                  v1::UploadMeasurementsResponse* out) override;
  grpc::Status ReportJob(grpc::ServerContext*, const v1::ReportJobRequest* r,
                         v1::ReportJobResponse* out) override;
  grpc::Status ListProfiles(grpc::ServerContext*,
                            const v1::ListProfilesRequest* r,
                            v1::ListProfilesResponse* out) override;
  grpc::Status GetProfile(grpc::ServerContext*, const v1::GetProfileRequest* r,
                          v1::GetProfileResponse* out) override;

 private:
  Tuner* tuner_;
};

// Starts a gRPC server for `service` on `address` ("unix:/path" or
// "host:port"), with the contract's request size limit. A stale unix socket
// file left by a dead daemon is removed; a live one is an error.
absl::StatusOr<std::unique_ptr<grpc::Server>> StartServer(
    const std::string& address, TuningService* service);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_SERVICE_H_
