#include "cli/rpc.h"

#include <cstdlib>
#include <fstream>

#include <unistd.h>

#include "auth/admin_token.h"
#include "auth/client_auth.h"
#include "client/client.h"

namespace colltune::cli {

std::unique_ptr<grpc::ClientContext> Call(const Connection& c) {
  return client::WithDeadline(std::chrono::milliseconds(c.timeout_ms));
}

absl::StatusOr<std::unique_ptr<grpc::ClientContext>> AdminCall(
    const Connection& c, std::string_view rpc, int64_t profile_id,
    const google::protobuf::Message& request) {
  std::string path = c.admin_token_file;
  if (path.empty()) {
    if (const char* v = getenv("COLLTUNE_ADMIN_TOKEN_FILE"); v && *v) path = v;
  }
  if (path.empty()) {
    // No token: an administrator's MUNGE credential, if munged is here.
    auto call = Call(c);
    if (const char* v = getenv("COLLTUNE_MUNGE_SOCKET"); (v && *v) ||
        access("/run/munge/munge.socket.2", F_OK) == 0) {
      absl::Status m = auth::AttachMunge(
          call.get(), auth::AdminBindingFor(rpc, profile_id, request));
      if (m.ok()) return call;
    }
    return absl::FailedPreconditionError(
        "this command changes decisions and needs the daemon's admin token: "
        "pass --admin-token-file PATH or set COLLTUNE_ADMIN_TOKEN_FILE (or, "
        "with colltuned --auth munge, run it as root or a member of its "
        "--admin-group with munged reachable)");
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
  call->AddMetadata(auth::kAdminTokenHeader, token);
  return call;
}

}  // namespace colltune::cli
