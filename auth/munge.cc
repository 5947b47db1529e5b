#include "auth/munge.h"

#include <munge.h>

#include <cstdlib>

namespace colltune::auth {
namespace {

// A context with our socket (and TTL); nullptr when libmunge refuses.
munge_ctx_t NewContext(const std::string& socket, int ttl, std::string* error) {
  munge_ctx_t ctx = munge_ctx_create();
  if (ctx == nullptr) {
    *error = "munge_ctx_create failed";
    return nullptr;
  }
  if (!socket.empty() &&
      munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket.c_str()) != EMUNGE_SUCCESS) {
    *error = munge_ctx_strerror(ctx);
    munge_ctx_destroy(ctx);
    return nullptr;
  }
  if (ttl > 0 && munge_ctx_set(ctx, MUNGE_OPT_TTL, ttl) != EMUNGE_SUCCESS) {
    *error = munge_ctx_strerror(ctx);
    munge_ctx_destroy(ctx);
    return nullptr;
  }
  return ctx;
}

}  // namespace

absl::StatusOr<std::string> MungeEncode(const std::string& socket,
                                        std::string_view payload,
                                        int ttl_seconds) {
  std::string error;
  munge_ctx_t ctx = NewContext(socket, ttl_seconds, &error);
  if (ctx == nullptr) return absl::InternalError("munge: " + error);
  char* cred = nullptr;
  const munge_err_t e = munge_encode(&cred, ctx, payload.data(),
                                     static_cast<int>(payload.size()));
  if (e != EMUNGE_SUCCESS) {
    const std::string why = munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx)
                                                     : munge_strerror(e);
    munge_ctx_destroy(ctx);
    free(cred);
    return absl::UnavailableError("munge_encode: " + why);
  }
  std::string out(cred);
  free(cred);
  munge_ctx_destroy(ctx);
  return out;
}

absl::StatusOr<MungeIdentity> MungeDecode(const std::string& socket,
                                          const std::string& credential,
                                          int* munge_error) {
  std::string error;
  munge_ctx_t ctx = NewContext(socket, 0, &error);
  if (ctx == nullptr) return absl::InternalError("munge: " + error);
  void* data = nullptr;
  int len = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  const munge_err_t e = munge_decode(credential.c_str(), ctx, &data, &len, &uid, &gid);
  if (munge_error != nullptr) *munge_error = static_cast<int>(e);
  const std::string why = e == EMUNGE_SUCCESS ? ""
                          : munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx)
                                                    : munge_strerror(e);
  munge_ctx_destroy(ctx);
  if (e != EMUNGE_SUCCESS) {
    free(data);
    if (e == EMUNGE_SOCKET || e == EMUNGE_NO_MEMORY || e == EMUNGE_SNAFU) {
      return absl::UnavailableError("munged: " + why);
    }
    return absl::UnauthenticatedError("MUNGE credential refused: " + why);
  }
  MungeIdentity id;
  id.uid = uid;
  id.gid = gid;
  if (data != nullptr) id.payload.assign(static_cast<const char*>(data), len);
  free(data);
  return id;
}

}  // namespace colltune::auth
