#include "client/client.h"

#include <cstdlib>

#include "auth/client_auth.h"
#include "common/limits.h"
#include "common/paths.h"
#include "common/table_wire.h"

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
  // Through the shim's own wire form and parser (common/table_wire.h): what
  // the shim would refuse, every client refuses too.
  wire::TableMessage message;
  message.library = proto.context().library();
  message.reproducible = proto.reproducible();
  for (const v1::TableSection& s : proto.sections()) {
    wire::SectionMessage& section = message.sections.emplace_back();
    section.comm_size = s.comm_size();
    section.profile_id = s.profile_id();
    section.version = s.version();
    for (const v1::Rule& r : s.rules()) {
      section.rules.push_back(
          {r.collective(), r.min_bytes(), r.max_bytes(), r.algorithm(), r.speedup()});
    }
  }
  std::string text, error;
  if (!wire::TableTextFromMessage(message, &text, warnings, &error)) {
    return absl::InvalidArgumentError(error);
  }
  Table table;
  if (!ParseTable(text, &table, &error)) {
    return absl::InvalidArgumentError("daemon sent an invalid table: " + error);
  }
  return table;
}

}  // namespace colltune::client
