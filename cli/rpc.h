// How the `colltune` commands call colltuned: a deadline on every call, and
// the admin token on the calls that change decisions.
#ifndef COLLTUNE_CLI_RPC_H_
#define COLLTUNE_CLI_RPC_H_

#include <memory>
#include <string_view>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "cli/commands.h"
#include "client/client.h"
#include "proto/colltune.grpc.pb.h"

namespace colltune::cli {

std::unique_ptr<grpc::ClientContext> Call(const Connection& c);

// A call carrying the token read from c.admin_token_file (else from the file
// named by $COLLTUNE_ADMIN_TOKEN_FILE). The token travels in a file, never on
// the command line, so it does not show in `ps`.
// Without a token file, a MUNGE credential bound to `request` (rpc name and
// profile) is sent instead when munged is here: a daemon with --auth munge
// takes it from uid 0 or a member of its --admin-group.
absl::StatusOr<std::unique_ptr<grpc::ClientContext>> AdminCall(
    const Connection& c, std::string_view rpc, int64_t profile_id,
    const google::protobuf::Message& request);

// A method of colltuned's stub, e.g. &v1::Tuning::Stub::GetTable.
template <typename Request, typename Response>
using Rpc = grpc::Status (v1::Tuning::Stub::*)(grpc::ClientContext*, const Request&,
                                                Response*);

// Sends `request` to c.server with Call's deadline; a failure names the server.
template <typename Request, typename Response>
absl::Status Ask(const Connection& c, Rpc<Request, Response> rpc, const Request& request,
                 Response* response) {
  auto stub = client::Connect(c.server);
  return client::FromGrpc(((*stub).*rpc)(Call(c).get(), request, response), c.server);
}

// The same for an admin RPC named `name`, with AdminCall's credentials.
template <typename Request, typename Response>
absl::Status AskAsAdmin(const Connection& c, std::string_view name, int64_t profile_id,
                        Rpc<Request, Response> rpc, const Request& request,
                        Response* response) {
  auto call = AdminCall(c, name, profile_id, request);
  if (!call.ok()) return call.status();
  auto stub = client::Connect(c.server);
  return client::FromGrpc(((*stub).*rpc)(call->get(), request, response), c.server);
}

}  // namespace colltune::cli

#endif  // COLLTUNE_CLI_RPC_H_
