#include "client/client.h"

#include <cstdlib>

#include "auth/client_auth.h"
#include "common/limits.h"
#include "common/paths.h"

namespace colltune::client {

std::string ResolveAddress(const std::string& address) {
  if (!address.empty()) return address;
  if (const char* v = getenv("COLLTUNE_SERVER"); v && *v) return v;
  return DefaultServerAddress();
}

std::unique_ptr<v1::Tuning::Stub> Connect(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(limits::kMaxRequestBytes);
  args.SetMaxSendMessageSize(limits::kMaxRequestBytes);
  // Fail fast instead of reconnecting with backoff: callers have deadlines.
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  // TLS on TCP when $COLLTUNE_TLS_CA names trusted certificates.
  const std::string target = ResolveAddress(address);
  return v1::Tuning::NewStub(grpc::CreateCustomChannel(
      target, auth::ChannelCredentialsFor(target), args));
}

std::unique_ptr<grpc::ClientContext> WithDeadline(
    std::chrono::milliseconds timeout) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + timeout);
  return context;
}

absl::Status FromGrpc(const grpc::Status& status, const std::string& address) {
  if (status.ok()) return absl::OkStatus();
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return absl::Status(code, "cannot reach colltuned at " +
                                  ResolveAddress(address) + ": " +
                                  status.error_message());
  }
  return absl::Status(code, "colltuned: " + status.error_message());
}

absl::StatusOr<Table> TableFromProto(const v1::DecisionTable& proto,
                                     std::vector<std::string>* warnings) {
  // Rebuilt as text and parsed: the shim's own parser is the one judge of
  // what a valid table is.
  std::string text = "colltune-table " + std::to_string(kTableFormatVersion) + "\n";
  if (proto.reproducible()) text += "reproducible\n";
  // The library the daemon answered for: its native algorithms are that
  // library's (never applied under another).
  const std::string& library = proto.context().library();
  if (!library.empty() && library.size() <= 64 &&
      library.find_first_of("\n\r#") == std::string::npos) {
    text += "library " + library + "\n";
  }
  for (const v1::TableSection& s : proto.sections()) {
    if (s.comm_size() < 1) {
      return absl::InvalidArgumentError("daemon sent a section for comm size " +
                                        std::to_string(s.comm_size()));
    }
    text += "section " + std::to_string(s.comm_size());
    if (s.profile_id() > 0) text += " profile=" + std::to_string(s.profile_id());
    if (s.version() > 0) text += " version=" + std::to_string(s.version());
    text += "\n";
    for (const v1::Rule& r : s.rules()) {
      const std::optional<Collective> c = ParseCollective(r.collective());
      if (!c) {
        return absl::InvalidArgumentError("daemon sent an unknown collective '" +
                                          r.collective().substr(0, 64) + "'");
      }
      if (!ParseAlgorithm(r.algorithm(), *c)) {
        warnings->push_back("unknown algorithm '" + r.algorithm().substr(0, 64) +
                            "' for " + r.collective().substr(0, 64) +
                            ": that range runs default");
        continue;
      }
      if (r.min_bytes() < 0 || r.max_bytes() < -1) {
        return absl::InvalidArgumentError("daemon sent a negative byte range");
      }
      text += r.collective() + " " + std::to_string(r.min_bytes()) + " " +
              (r.max_bytes() < 0 ? std::string("inf")
                                 : std::to_string(r.max_bytes())) +
              " " + r.algorithm();
      if (r.speedup() > 0 && r.speedup() < 1e9) {
        text += " " + std::to_string(r.speedup());
      }
      text += "\n";
    }
  }
  Table table;
  std::string error;
  if (!ParseTable(text, &table, &error)) {
    return absl::InvalidArgumentError("daemon sent an invalid table: " + error);
  }
  return table;
}

}  // namespace colltune::client
