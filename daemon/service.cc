#include "daemon/service.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

// A unix socket path that nobody listens on is left over from a daemon that
// died; one that answers belongs to a running daemon.
absl::Status PrepareUnixSocket(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return absl::OkStatus();
  if (!S_ISSOCK(st.st_mode)) {
    return absl::FailedPreconditionError(path +
                                         " exists and is not a unix socket");
  }
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    return absl::InvalidArgumentError("unix socket path too long: " + path);
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(strerror(errno));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.data(), path.size());
  const bool live =
      connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  if (live) {
    return absl::AlreadyExistsError("another daemon is listening on " + path);
  }
  unlink(path.c_str());
  return absl::OkStatus();
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

grpc::Status TuningService::UploadMeasurements(
    grpc::ServerContext* ctx, const v1::UploadMeasurementsRequest* r,
    v1::UploadMeasurementsResponse* out) {
  if (auth_ != nullptr && auth_->munge()) {
    std::string cause;
    absl::StatusOr<Uploader> who = auth_->Authenticate(
        Credential(ctx), auth::BindingFor(*r), /*report=*/false, &cause);
    if (!who.ok()) {
      auth_->LogRefusal("UploadMeasurements", cause, who.status());
      return ToGrpc(who.status());
    }
  }
  return Reply(tuner_->UploadMeasurements(*r), out);
}

grpc::Status TuningService::ReportJob(grpc::ServerContext* ctx,
                                      const v1::ReportJobRequest* r,
                                      v1::ReportJobResponse* out) {
  Uploader from;
  if (auth_ != nullptr && auth_->munge()) {
    std::string cause;
    absl::StatusOr<Uploader> who = auth_->Authenticate(
        Credential(ctx), auth::BindingFor(*r), /*report=*/true, &cause);
    if (!who.ok()) {
      auth_->LogRefusal("ReportJob", cause, who.status());
      return ToGrpc(who.status());
    }
    from = *who;
  }
  return Reply(tuner_->ReportJob(*r, from), out);
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
  auto it = metadata.find(kAdminTokenHeader);
  const std::string_view presented =
      it == metadata.end() ? std::string_view()
                           : std::string_view(it->second.data(), it->second.size());
  // Without a token, a MUNGE credential of uid 0 or of --admin-group will do.
  const std::string_view credential = Credential(ctx);
  if (presented.empty() && !credential.empty() && auth_ != nullptr &&
      auth_->munge()) {
    std::string cause;
    absl::Status s = auth_->AuthorizeAdmin(
        credential, auth::AdminBindingFor(rpc, profile_id, request), &cause);
    if (!s.ok()) auth_->LogRefusal(rpc, cause, s);
    return s;
  }
  return token_->Check(presented);
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

absl::StatusOr<std::unique_ptr<grpc::Server>> StartServer(
    const std::string& address, TuningService* service, Metrics* metrics,
    const TlsFiles* tls) {
  if (address.rfind("unix:", 0) == 0) {
    std::string path = address.substr(5);
    if (path.rfind("//", 0) == 0) path = path.substr(2);
    if (absl::Status s = PrepareUnixSocket(path); !s.ok()) return s;
  }
  grpc::ServerBuilder builder;
  int port = 0;
  std::shared_ptr<grpc::ServerCredentials> credentials =
      grpc::InsecureServerCredentials();
  if (tls != nullptr) {
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back({tls->key_pem, tls->cert_pem});
    credentials = grpc::SslServerCredentials(ssl);
  }
  builder.AddListeningPort(address, credentials, &port);
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
  if (server == nullptr || port == 0) {
    return absl::UnavailableError("cannot listen on " + address);
  }
  return server;
}

}  // namespace colltune::daemon
