// The gRPC face of colltuned: each RPC hands its request to the Tuner and
// maps the outcome to a gRPC status (validation errors are
// INVALID_ARGUMENT, with the message naming the field).
#ifndef COLLTUNE_DAEMON_SERVICE_H_
#define COLLTUNE_DAEMON_SERVICE_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "auth/admin_token.h"
#include "auth/peer_credentials.h"
#include "auth/upload_auth.h"
#include "daemon/metrics.h"
#include "daemon/tuner.h"
#include "daemon/unix_listener.h"
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
  // auth::kAdminTokenHeader).
  // `auth` (maybe null: --auth none) authenticates ReportJob and
  // UploadMeasurements and lets MUNGE administrators in (upload_auth.h).
  // `peers` (maybe null: none identified) names the senders of calls on the
  // unix socket (peer_credentials.h; StartServer records them there).
  TuningService(Tuner* tuner, const auth::AdminToken* token,
                auth::UploadAuth* auth = nullptr,
                const auth::PeerCredentials* peers = nullptr)
      : tuner_(tuner), token_(token), auth_(auth), peers_(peers) {}

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
  // The unix-socket peer of the call, looked up as the call starts (see
  // peer_credentials.h on why its descriptor number is still its own).
  std::optional<auth::PeerIdentity> Peer(const grpc::ServerContext* ctx) const;
  // Whether the call came on the unix socket (identified or not).
  static bool OnSocket(const grpc::ServerContext* ctx);
  // Who sent an upload (`report`: a job report) named `rpc`: munged's uid
  // (--auth munge) or the unix-socket peer's; unknown over TCP under --auth
  // none, if accepted at all. A refusal is logged and returned.
  template <class Request>
  absl::StatusOr<Uploader> Sender(grpc::ServerContext* ctx, const Request& r, bool report,
                                  const char* rpc);

  Tuner* tuner_;
  const auth::AdminToken* token_;
  auth::UploadAuth* auth_;
  const auth::PeerCredentials* peers_;
};

// Starts a gRPC server for `service` on `address` ("unix:/path" or
// "host:port"), with the contract's request size limit. A stale unix socket
// file left by a dead daemon is removed; a live one is an error. A unix
// socket is accepted by colltuned itself (unix_listener.h), each peer's
// credentials recorded in `peers` (maybe null). With `metrics`, every call
// is counted and timed there (rpc_metrics.h). With `tls` (cert and key
// PEM), a TCP listener speaks TLS (gRPC's own).
struct TlsFiles {
  std::string cert_pem, key_pem;
};

// The running server: gRPC's, and for a unix socket the accept thread that
// feeds it. Destroying it shuts both down and removes the socket file.
class RpcServer {
 public:
  RpcServer(std::unique_ptr<grpc::Server> server,
            std::unique_ptr<UnixListener> unix_listener)
      : server_(std::move(server)), unix_(std::move(unix_listener)) {}
  ~RpcServer() { Shutdown(std::chrono::system_clock::now()); }

  // Stops accepting, then waits for calls in progress until `deadline` (after
  // which they are cancelled). Idempotent.
  void Shutdown(std::chrono::system_clock::time_point deadline =
                    std::chrono::system_clock::time_point::max());
  grpc::Server* grpc() { return server_.get(); }

 private:
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<UnixListener> unix_;
  bool shut_down_ = false;
};

absl::StatusOr<std::unique_ptr<RpcServer>> StartServer(
    const std::string& address, TuningService* service,
    Metrics* metrics = nullptr, const TlsFiles* tls = nullptr,
    auth::PeerCredentials* peers = nullptr);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_SERVICE_H_
