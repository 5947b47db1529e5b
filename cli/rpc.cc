#include "cli/rpc.h"

#include <cstdlib>
#include <fstream>

#include "client/client.h"

namespace colltune::cli {
namespace {

// Must match daemon/auth.h; the CLI does not link the daemon.
constexpr char kAdminTokenHeader[] = "x-colltune-admin-token";

}  // namespace

std::unique_ptr<grpc::ClientContext> Call(const Connection& c) {
  return client::WithDeadline(std::chrono::milliseconds(c.timeout_ms));
}

absl::StatusOr<std::unique_ptr<grpc::ClientContext>> AdminCall(
    const Connection& c) {
  std::string path = c.admin_token_file;
  if (path.empty()) {
    if (const char* v = getenv("COLLTUNE_ADMIN_TOKEN_FILE"); v && *v) path = v;
  }
  if (path.empty()) {
    return absl::FailedPreconditionError(
        "this command changes decisions and needs the daemon's admin token: "
        "pass --admin-token-file PATH or set COLLTUNE_ADMIN_TOKEN_FILE");
  }
  std::ifstream in(path);
  std::string token;
  if (!in || !std::getline(in, token)) {
    return absl::FailedPreconditionError("cannot read the admin token from " +
                                         path);
  }
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ' ||
                            token.back() == '\t')) {
    token.pop_back();
  }
  if (token.empty()) {
    return absl::FailedPreconditionError("the admin token file " + path +
                                         " starts with an empty line");
  }
  auto call = Call(c);
  call->AddMetadata(kAdminTokenHeader, token);
  return call;
}

}  // namespace colltune::cli
