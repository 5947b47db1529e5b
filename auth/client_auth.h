// The client side of authenticated uploads, shared by `colltune` (the
// shim's agent: `colltune flush`) and colltune-bench (campaign uploads).
//
// MUNGE: an upload call carries a credential bound to its request
// (binding.h) in the metadata key kMungeHeader, made through the munged at
// $COLLTUNE_MUNGE_SOCKET (`colltune --munge-socket` sets it), else at
// libmunge's default socket. It is attempted only when that socket exists,
// and never with COLLTUNE_MUNGE=0; a daemon without --auth munge ignores it.
// Reads (GetTable, listings) never carry one.
//
// TLS: with $COLLTUNE_TLS_CA (`colltune --tls-ca`) naming a PEM file of
// trusted certificates, TCP channels use TLS verified against it; unix
// sockets stay plaintext.
#ifndef COLLTUNE_AUTH_CLIENT_AUTH_H_
#define COLLTUNE_AUTH_CLIENT_AUTH_H_

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "auth/binding.h"

namespace colltune::auth {

// Adds the credential for `binding` to `context`. OK when it was added or
// MUNGE is not in use here (no socket, COLLTUNE_MUNGE=0); an error (the call
// then goes out without one) when munged refused or failed.
absl::Status AttachMunge(grpc::ClientContext* context, const Binding& binding);

// Channel credentials for `address`: TLS with $COLLTUNE_TLS_CA's roots on
// TCP when set, else insecure. A CA file that cannot be read gives TLS with
// no roots, so the call fails rather than going out in the clear.
std::shared_ptr<grpc::ChannelCredentials> ChannelCredentialsFor(
    const std::string& address);

}  // namespace colltune::auth

#endif  // COLLTUNE_AUTH_CLIENT_AUTH_H_
