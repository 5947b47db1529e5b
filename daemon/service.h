// The gRPC face of colltuned: each RPC hands its request to the Tuner and
// maps the outcome to a gRPC status (validation errors are
// INVALID_ARGUMENT, with the message naming the field).
#ifndef COLLTUNE_DAEMON_SERVICE_H_
#define COLLTUNE_DAEMON_SERVICE_H_

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "daemon/auth.h"
#include "daemon/metrics.h"
#include "daemon/tuner.h"
#include "daemon/upload_auth.h"
#include "proto/colltune.grpc.pb.h"

namespace colltune::daemon {

// GetTable, which every job calls at MPI_Init, uses gRPC's callback API:
// it is answered on the thread that read the request, where the synchronous
// API hands each call to a pool thread (two context switches, and thread
// churn under load). A cached answer (Tuner::GetTable) does not block; a
// miss reads the store, as long as a synchronous call would.
class TuningService final
    : public v1::Tuning::WithCallbackMethod_GetTable<v1::Tuning::Service> {
 public:
  // `token` guards RollbackTable, Pin and Unpin (metadata key
  // kAdminTokenHeader).
  // `auth` (maybe null: --auth none) authenticates ReportJob and
  // UploadMeasurements and lets MUNGE administrators in (upload_auth.h).
  TuningService(Tuner* tuner, const AdminToken* token,
                UploadAuth* auth = nullptr)
      : tuner_(tuner), token_(token), auth_(auth) {}

  grpc::ServerUnaryReactor* GetTable(grpc::CallbackServerContext* ctx,
                                     const v1::GetTableRequest* r,
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
  grpc::Status GetTableHistory(grpc::ServerContext*,
                               const v1::GetTableHistoryRequest* r,
                               v1::GetTableHistoryResponse* out) override;
  grpc::Status GetTableVersion(grpc::ServerContext*,
                               const v1::GetTableVersionRequest* r,
                               v1::GetTableVersionResponse* out) override;
  grpc::Status GetViolations(grpc::ServerContext*,
                             const v1::GetViolationsRequest* r,
                             v1::GetViolationsResponse* out) override;
  grpc::Status GetCampaign(grpc::ServerContext*, const v1::GetCampaignRequest* r,
                           v1::GetCampaignResponse* out) override;
  grpc::Status ListPins(grpc::ServerContext*, const v1::ListPinsRequest* r,
                        v1::ListPinsResponse* out) override;
  grpc::Status ListJobReports(grpc::ServerContext*,
                              const v1::ListJobReportsRequest* r,
                              v1::ListJobReportsResponse* out) override;
  grpc::Status RollbackTable(grpc::ServerContext* ctx,
                             const v1::RollbackTableRequest* r,
                             v1::RollbackTableResponse* out) override;
  grpc::Status Pin(grpc::ServerContext* ctx, const v1::PinRequest* r,
                   v1::PinResponse* out) override;
  grpc::Status Unpin(grpc::ServerContext* ctx, const v1::UnpinRequest* r,
                     v1::UnpinResponse* out) override;

 private:
  absl::Status CheckAdmin(const grpc::ServerContext* ctx, std::string_view rpc,
                          int64_t profile_id,
                          const google::protobuf::Message& request) const;

  Tuner* tuner_;
  const AdminToken* token_;
  UploadAuth* auth_;
};

// Starts a gRPC server for `service` on `address` ("unix:/path" or
// "host:port"), with the contract's request size limit. A stale unix socket
// file left by a dead daemon is removed; a live one is an error. With
// `metrics`, every call is counted and timed there (rpc_metrics.h).
// With `tls` (cert and key PEM), a TCP listener speaks TLS (gRPC's own).
struct TlsFiles {
  std::string cert_pem, key_pem;
};
absl::StatusOr<std::unique_ptr<grpc::Server>> StartServer(
    const std::string& address, TuningService* service,
    Metrics* metrics = nullptr, const TlsFiles* tls = nullptr);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_SERVICE_H_
