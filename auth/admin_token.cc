#include "auth/admin_token.h"

#include <fstream>

namespace colltune::auth {

absl::StatusOr<AdminToken> AdminToken::FromFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("cannot read admin token file " + path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' ||
                           line.back() == '\t')) {
    line.pop_back();
  }
  if (line.size() < 16) {
    return absl::InvalidArgumentError("admin token in " + path +
                                      " is shorter than 16 characters");
  }
  return AdminToken(line);
}

absl::Status AdminToken::Check(std::string_view presented) const {
  if (token_.empty()) {
    return absl::PermissionDeniedError(
        "this colltuned has no admin token (start it with --admin-token-file)");
  }
  if (presented.empty()) {
    return absl::UnauthenticatedError(
        "an admin token is required (colltune --admin-token-file)");
  }
  // Constant time in the token's length, so timing reveals nothing.
  unsigned char diff = presented.size() == token_.size() ? 0 : 1;
  for (size_t i = 0; i < token_.size(); ++i) {
    const unsigned char p =
        i < presented.size() ? static_cast<unsigned char>(presented[i]) : 0;
    diff |= p ^ static_cast<unsigned char>(token_[i]);
  }
  if (diff != 0) return absl::PermissionDeniedError("wrong admin token");
  return absl::OkStatus();
}

}  // namespace colltune::auth
