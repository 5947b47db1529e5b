// libmunge, wrapped: a credential for a payload, and a credential decoded
// back into the uid, gid and payload munged vouches for.
#ifndef COLLTUNE_AUTH_MUNGE_H_
#define COLLTUNE_AUTH_MUNGE_H_

#include <sys/types.h>

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace colltune::auth {

// `socket` empty: libmunge's default (/run/munge/munge.socket.2).
// `ttl_seconds` 0: munged's default (300 s).
absl::StatusOr<std::string> MungeEncode(const std::string& socket,
                                        std::string_view payload,
                                        int ttl_seconds = 0);

struct MungeIdentity {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string payload;
};

// What munged says of a credential. Refusals are UNAUTHENTICATED with
// munged's reason ("Expired credential", "Replayed credential", "Invalid
// credential" for one made under another key, ...); munged unreachable is
// UNAVAILABLE. *munge_error (if given) gets libmunge's error code.
absl::StatusOr<MungeIdentity> MungeDecode(const std::string& socket,
                                          const std::string& credential,
                                          int* munge_error = nullptr);

}  // namespace colltune::auth

#endif  // COLLTUNE_AUTH_MUNGE_H_
