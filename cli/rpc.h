// How the `colltune` commands call colltuned: a deadline on every call, and
// the admin token on the calls that change decisions.
#ifndef COLLTUNE_CLI_RPC_H_
#define COLLTUNE_CLI_RPC_H_

#include <memory>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "cli/commands.h"

namespace colltune::cli {

std::unique_ptr<grpc::ClientContext> Call(const Connection& c);

// A call carrying the token read from c.admin_token_file (else from the file
// named by $COLLTUNE_ADMIN_TOKEN_FILE). The token travels in a file, never on
// the command line, so it does not show in `ps`.
absl::StatusOr<std::unique_ptr<grpc::ClientContext>> AdminCall(
    const Connection& c);

}  // namespace colltune::cli

#endif  // COLLTUNE_CLI_RPC_H_
