// The admin token that guards state-changing requests (rollback, pin,
// unpin). Read from a file at start; with none configured every such request
// is refused, so a daemon never runs open by accident.
#ifndef COLLTUNE_AUTH_ADMIN_TOKEN_H_
#define COLLTUNE_AUTH_ADMIN_TOKEN_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace colltune::auth {

class AdminToken {
 public:
  AdminToken() = default;  // none configured
  explicit AdminToken(std::string token) : token_(std::move(token)) {}

  // The first line of `path`, which must be at least 16 characters long.
  static absl::StatusOr<AdminToken> FromFile(const std::string& path);

  // OK if `presented` is the token (compared in constant time), else
  // PERMISSION_DENIED (or UNAUTHENTICATED when nothing was presented).
  absl::Status Check(std::string_view presented) const;

  bool configured() const { return !token_.empty(); }

 private:
  std::string token_;
};

// The gRPC metadata key (and HTTP header) that carries the token.
inline constexpr char kAdminTokenHeader[] = "x-colltune-admin-token";

}  // namespace colltune::auth

#endif  // COLLTUNE_AUTH_ADMIN_TOKEN_H_
