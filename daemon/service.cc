#include "daemon/service.h"

#include "common/limits.h"
#include "daemon/rpc_metrics.h"

namespace colltune::daemon {
namespace {

grpc::Status ToGrpc(const absl::Status& s) {
  // absl and gRPC share the canonical status codes.
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()),
                      std::string(s.message()));
}

template <class Response>
grpc::Status Reply(absl::StatusOr<Response> result, Response* out) {
  if (!result.ok()) return ToGrpc(result.status());
  *out = std::move(*result);
  return grpc::Status::OK;
}

// The MUNGE credential a call carries, empty if none.
std::string_view Credential(const grpc::ServerContext* ctx) {
  const auto& metadata = ctx->client_metadata();
  auto it = metadata.find(auth::kMungeHeader);
  if (it == metadata.end()) return {};
  return std::string_view(it->second.data(), it->second.size());
}

}  // namespace

grpc::ServerUnaryReactor* TuningService::GetTable(grpc::CallbackServerContext* ctx,
                                                  const v1::GetTableRequest* r,
                                                  v1::GetTableResponse* out) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  reactor->Finish(Reply(tuner_->GetTable(*r), out));
  return reactor;
}

template <class Request>
absl::StatusOr<Uploader> TuningService::Sender(grpc::ServerContext* ctx, const Request& r,
                                               bool report, const char* rpc) {
  const std::optional<auth::PeerIdentity> peer = Peer(ctx);
  Uploader from;
  if (auth_ != nullptr) {
    // --auth none checks no credential, so the request's binding is not
    // computed there.
    std::string cause;
    absl::StatusOr<Uploader> who = auth_->Authenticate(
        Credential(ctx), auth_->munge() ? auth::BindingFor(r) : auth::Binding{}, peer,
        OnSocket(ctx), report, &cause);
    if (!who.ok()) auth_->LogRefusal(rpc, cause, who.status());
    return who;
  }
  if (peer) {
    from.uid = peer->uid;
    from.gid = peer->gid;
  }
  return from;
}

grpc::Status TuningService::UploadMeasurements(
    grpc::ServerContext* ctx, const v1::UploadMeasurementsRequest* r,
    v1::UploadMeasurementsResponse* out) {
  absl::StatusOr<Uploader> from = Sender(ctx, *r, /*report=*/false, "UploadMeasurements");
  if (!from.ok()) return ToGrpc(from.status());
  return Reply(tuner_->UploadMeasurements(*r, *from), out);
}

grpc::Status TuningService::ReportJob(grpc::ServerContext* ctx,
                                      const v1::ReportJobRequest* r,
                                      v1::ReportJobResponse* out) {
  absl::StatusOr<Uploader> from = Sender(ctx, *r, /*report=*/true, "ReportJob");
  if (!from.ok()) return ToGrpc(from.status());
  return Reply(tuner_->ReportJob(*r, *from), out);
}

grpc::Status TuningService::ListProfiles(grpc::ServerContext*,
                                         const v1::ListProfilesRequest* r,
                                         v1::ListProfilesResponse* out) {
  return Reply(tuner_->ListProfiles(*r), out);
}

grpc::Status TuningService::GetProfile(grpc::ServerContext*,
                                       const v1::GetProfileRequest* r,
                                       v1::GetProfileResponse* out) {
  return Reply(tuner_->GetProfile(*r), out);
}

grpc::Status TuningService::GetTableHistory(grpc::ServerContext*,
                                            const v1::GetTableHistoryRequest* r,
                                            v1::GetTableHistoryResponse* out) {
  return Reply(tuner_->GetTableHistory(*r), out);
}

grpc::Status TuningService::GetTableVersion(grpc::ServerContext*,
                                            const v1::GetTableVersionRequest* r,
                                            v1::GetTableVersionResponse* out) {
  return Reply(tuner_->GetTableVersion(*r), out);
}

grpc::Status TuningService::GetViolations(grpc::ServerContext*,
                                          const v1::GetViolationsRequest* r,
                                          v1::GetViolationsResponse* out) {
  return Reply(tuner_->GetViolations(*r), out);
}

grpc::Status TuningService::GetCampaign(grpc::ServerContext*,
                                        const v1::GetCampaignRequest* r,
                                        v1::GetCampaignResponse* out) {
  return Reply(tuner_->GetCampaign(*r), out);
}

grpc::Status TuningService::ListPins(grpc::ServerContext*,
                                     const v1::ListPinsRequest* r,
                                     v1::ListPinsResponse* out) {
  return Reply(tuner_->ListPins(*r), out);
}

grpc::Status TuningService::ListJobReports(grpc::ServerContext*,
                                           const v1::ListJobReportsRequest* r,
                                           v1::ListJobReportsResponse* out) {
  return Reply(tuner_->ListJobReports(*r), out);
}

absl::Status TuningService::CheckAdmin(
    const grpc::ServerContext* ctx, std::string_view rpc, int64_t profile_id,
    const google::protobuf::Message& request) const {
  const auto& metadata = ctx->client_metadata();
  auto it = metadata.find(auth::kAdminTokenHeader);
  const std::string_view presented =
      it == metadata.end() ? std::string_view()
                           : std::string_view(it->second.data(), it->second.size());
  // Without a token, with --auth munge, a MUNGE credential of uid 0 or of
  // --admin-group will do, and so will such a unix-socket peer. Under
  // --auth none only the token opens these calls, as it always did: a
  // daemon authenticating nothing does not start trusting root's socket
  // connections unasked.
  const std::string_view credential = Credential(ctx);
  if (presented.empty() && auth_ != nullptr && auth_->munge()) {
    const std::optional<auth::PeerIdentity> peer = Peer(ctx);
    if (!credential.empty() || peer) {
      std::string cause;
      absl::Status s = auth_->AuthorizeAdmin(
          credential, auth::AdminBindingFor(rpc, profile_id, request), peer,
          &cause);
      if (!s.ok()) auth_->LogRefusal(rpc, cause, s);
      return s;
    }
  }
  return token_->Check(presented);
}

std::optional<auth::PeerIdentity> TuningService::Peer(const grpc::ServerContext* ctx) const {
  if (peers_ == nullptr) return std::nullopt;
  return peers_->Find(ctx->peer());
}

bool TuningService::OnSocket(const grpc::ServerContext* ctx) {
  // The unix socket's connections are accepted by colltuned and handed to
  // gRPC as "fd:N" (peer_credentials.h); TCP peers are "ipv4:..", "ipv6:..".
  return auth::PeerCredentials::ParseFdPeer(ctx->peer()).has_value();
}

grpc::Status TuningService::RollbackTable(grpc::ServerContext* ctx,
                                          const v1::RollbackTableRequest* r,
                                          v1::RollbackTableResponse* out) {
  if (absl::Status s = CheckAdmin(ctx, "RollbackTable", r->profile_id(), *r);
      !s.ok()) {
    return ToGrpc(s);
  }
  return Reply(tuner_->RollbackTable(*r), out);
}

grpc::Status TuningService::Pin(grpc::ServerContext* ctx,
                                const v1::PinRequest* r, v1::PinResponse* out) {
  if (absl::Status s = CheckAdmin(ctx, "Pin", r->pin().profile_id(), *r); !s.ok()) {
    return ToGrpc(s);
  }
  return Reply(tuner_->Pin(*r), out);
}

grpc::Status TuningService::Unpin(grpc::ServerContext* ctx,
                                  const v1::UnpinRequest* r,
                                  v1::UnpinResponse* out) {
  if (absl::Status s = CheckAdmin(ctx, "Unpin", r->profile_id(), *r); !s.ok()) {
    return ToGrpc(s);
  }
  return Reply(tuner_->Unpin(*r), out);
}

void RpcServer::Shutdown(std::chrono::system_clock::time_point deadline) {
  if (shut_down_) return;
  shut_down_ = true;
  // No connection may be handed to gRPC once it shuts down.
  if (unix_) unix_->Stop();
  if (deadline == std::chrono::system_clock::time_point::max()) {
    server_->Shutdown();
  } else {
    server_->Shutdown(deadline);
  }
}

absl::StatusOr<std::unique_ptr<RpcServer>> StartServer(
    const std::string& address, TuningService* service, Metrics* metrics,
    const TlsFiles* tls, auth::PeerCredentials* peers) {
  std::unique_ptr<UnixListener> unix_listener;
  if (address.rfind("unix:", 0) == 0) {
    std::string path = address.substr(5);
    if (path.rfind("//", 0) == 0) path = path.substr(2);
    absl::StatusOr<std::unique_ptr<UnixListener>> listening = UnixListener::Listen(path);
    if (!listening.ok()) return listening.status();
    unix_listener = std::move(*listening);
  }
  grpc::ServerBuilder builder;
  int port = 0;
  if (unix_listener == nullptr) {
    std::shared_ptr<grpc::ServerCredentials> credentials =
        grpc::InsecureServerCredentials();
    if (tls != nullptr) {
      grpc::SslServerCredentialsOptions ssl;
      ssl.pem_key_cert_pairs.push_back({tls->key_pem, tls->cert_pem});
      credentials = grpc::SslServerCredentials(ssl);
    }
    builder.AddListeningPort(address, credentials, &port);
  }
  builder.SetMaxReceiveMessageSize(limits::kMaxRequestBytes);
  builder.SetMaxSendMessageSize(limits::kMaxRequestBytes);
  builder.RegisterService(service);
  if (metrics != nullptr) {
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
        interceptors;
    interceptors.push_back(RpcMetricsInterceptorFactory(metrics));
    builder.experimental().SetInterceptorCreators(std::move(interceptors));
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || (unix_listener == nullptr && port == 0)) {
    return absl::UnavailableError("cannot listen on " + address);
  }
  if (unix_listener != nullptr) unix_listener->Serve(server.get(), peers);
  return std::make_unique<RpcServer>(std::move(server), std::move(unix_listener));
}

}  // namespace colltune::daemon
