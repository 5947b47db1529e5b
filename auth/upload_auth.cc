#include "auth/upload_auth.h"

#include <grp.h>
#include <munge.h>
#include <pwd.h>

#include <chrono>
#include <vector>

#include <spdlog/spdlog.h>

#include "auth/munge.h"

namespace colltune::auth {
namespace {

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string CauseOfMunge(int e) {
  switch (e) {
    case EMUNGE_CRED_EXPIRED:
      return "expired credential";
    case EMUNGE_CRED_REPLAYED:
      return "replayed credential";
    case EMUNGE_CRED_REWOUND:
      return "rewound credential";
    case EMUNGE_CRED_INVALID:
    case EMUNGE_BAD_CRED:
    case EMUNGE_BAD_VERSION:
    case EMUNGE_BAD_CIPHER:
    case EMUNGE_BAD_MAC:
    case EMUNGE_BAD_ZIP:
    case EMUNGE_BAD_LENGTH:
    case EMUNGE_BAD_REALM:
      return "invalid credential";
    case EMUNGE_SOCKET:
      return "munged unreachable";
    default:
      return "munge error " + std::to_string(e);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<UploadAuth>> UploadAuth::Create(
    const AuthOptions& o) {
  std::unique_ptr<UploadAuth> auth(new UploadAuth(o));
  if (!o.admin_group.empty()) {
    std::vector<char> buf(16384);
    group g;
    group* found = nullptr;
    if (getgrnam_r(o.admin_group.c_str(), &g, buf.data(), buf.size(), &found) != 0 ||
        found == nullptr) {
      return absl::NotFoundError("--admin-group: no group named " + o.admin_group);
    }
    auth->admin_gid_ = found->gr_gid;
  }
  return auth;
}

absl::StatusOr<Uploader> UploadAuth::Decode(std::string_view credential,
                                            const Binding& expected,
                                            std::string* cause,
                                            std::string* payload_rpc) {
  if (credential.empty()) {
    *cause = "no credential";
    return absl::UnauthenticatedError(
        "this colltuned requires a MUNGE credential on uploads (metadata " +
        std::string(kMungeHeader) +
        "; the colltune client adds one when it finds munged: "
        "COLLTUNE_MUNGE_SOCKET or --munge-socket)");
  }
  if (credential.size() > kMaxCredentialBytes) {
    *cause = "oversized credential";
    return absl::InvalidArgumentError(
        "MUNGE credential of " + std::to_string(credential.size()) +
        " bytes, more than " + std::to_string(kMaxCredentialBytes));
  }
  int munge_error = 0;
  absl::StatusOr<MungeIdentity> id =
      MungeDecode(options_.munge_socket, std::string(credential), &munge_error);
  if (!id.ok()) {
    *cause = CauseOfMunge(munge_error);
    return id.status();
  }
  absl::StatusOr<Binding> bound = ParseBinding(id->payload);
  if (!bound.ok()) {
    *cause = "not a colltune credential";
    return bound.status();
  }
  *payload_rpc = bound->rpc;
  if (absl::Status s = CheckBinding(*bound, expected); !s.ok()) {
    *cause = "credential bound to another request";
    return s;
  }
  Uploader who;
  who.uid = id->uid;
  who.gid = id->gid;
  return who;
}

absl::StatusOr<Uploader> UploadAuth::Identify(
    std::string_view credential, const Binding& expected,
    const std::optional<PeerIdentity>& peer, std::string* cause) {
  if (credential.empty() && peer) {
    // The kernel's word for who connected to the unix socket.
    Uploader who;
    who.uid = peer->uid;
    who.gid = peer->gid;
    return who;
  }
  std::string rpc;
  absl::StatusOr<Uploader> who = Decode(credential, expected, cause, &rpc);
  if (!who.ok()) return who;
  if (peer && peer->uid != who->uid) {
    // A credential of another user, carried by this one (given away, or
    // stolen before its first use).
    *cause = "credential of another uid than the peer's";
    return absl::PermissionDeniedError(
        "the MUNGE credential is uid " + std::to_string(who->uid) +
        "'s, but uid " + std::to_string(peer->uid) +
        " sent it (the unix socket's peer)");
  }
  return who;
}

absl::StatusOr<Uploader> UploadAuth::Authenticate(
    std::string_view credential, const Binding& expected,
    const std::optional<PeerIdentity>& peer, bool on_socket, bool report,
    std::string* cause) {
  if (!munge()) {
    // Nothing is checked; a unix-socket peer is recorded for what it is.
    Uploader who;
    if (peer) {
      who.uid = peer->uid;
      who.gid = peer->gid;
    } else if (!on_socket && !options_.anonymous_uploads) {
      *cause = "anonymous upload";
      return absl::UnauthenticatedError(
          std::string("this colltuned (--auth none) refuses ") +
          (report ? "job reports" : "campaign uploads") +
          " whose sender nobody vouches for (over TCP); send them on its unix "
          "socket, run it with --auth munge, or accept anonymous uploads with "
          "--insecure-accept-anonymous-uploads");
    }
    if (absl::Status s = TakeRate(who, report, cause); !s.ok()) return s;
    return who;
  }
  absl::StatusOr<Uploader> who = Identify(credential, expected, peer, cause);
  if (!who.ok()) return who;
  if (absl::Status s = TakeRate(*who, report, cause); !s.ok()) return s;
  return who;
}

absl::Status UploadAuth::TakeRate(const Uploader& who, bool report, std::string* cause) {
  TokenBuckets& buckets = report ? reports_ : uploads_;
  if (buckets.Take(who.uid, Now())) return absl::OkStatus();
  const bool anonymous = who.uid < 0;
  *cause = std::string(report ? "report" : "upload") + " rate of " +
           (anonymous ? "anonymous senders" : "a uid");
  const double limit = report ? options_.reports_per_uid_per_minute
                              : options_.uploads_per_uid_per_minute;
  return absl::ResourceExhaustedError(
      (anonymous ? std::string("anonymous senders") : "uid " + std::to_string(who.uid)) +
      " sent more than " + std::to_string(static_cast<int64_t>(limit)) + " " +
      (report ? "job reports" : "uploads") + " in a minute (colltuned --max-" +
      (report ? "reports" : "uploads") + "-per-uid-per-minute); try again later");
}

bool UploadAuth::InAdminGroup(uid_t uid, gid_t gid) const {
  if (!admin_gid_) return false;
  if (gid == *admin_gid_) return true;
  std::vector<char> buf(16384);
  passwd pw;
  passwd* found = nullptr;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return false;
  }
  int n = 64;
  std::vector<gid_t> groups(n);
  if (getgrouplist(found->pw_name, found->pw_gid, groups.data(), &n) < 0) {
    groups.resize(n);
    if (getgrouplist(found->pw_name, found->pw_gid, groups.data(), &n) < 0) return false;
  }
  for (int i = 0; i < n; ++i) {
    if (groups[i] == *admin_gid_) return true;
  }
  return false;
}

absl::Status UploadAuth::RequireAdmin(const Uploader& who, std::string* cause) const {
  if (who.uid == 0 ||
      InAdminGroup(static_cast<uid_t>(who.uid), static_cast<gid_t>(who.gid))) {
    return absl::OkStatus();
  }
  *cause = "not an administrator";
  return absl::PermissionDeniedError(
      "uid " + std::to_string(who.uid) + " is not an administrator (uid 0" +
      (options_.admin_group.empty() ? std::string()
                                    : " or group " + options_.admin_group) +
      "; others present the admin token)");
}

absl::Status UploadAuth::AuthorizeAdmin(std::string_view credential,
                                        const Binding& expected,
                                        const std::optional<PeerIdentity>& peer,
                                        std::string* cause) {
  absl::StatusOr<Uploader> who = Identify(credential, expected, peer, cause);
  if (!who.ok()) return who.status();
  return RequireAdmin(*who, cause);
}

void UploadAuth::LogRefusal(std::string_view rpc, std::string_view cause,
                            const absl::Status& status) {
  int64_t suppressed = 0;
  const std::string key = std::string(rpc) + ": " + std::string(cause);
  if (!log_.ShouldLog(key, Now(), &suppressed)) return;
  if (suppressed > 0) {
    spdlog::warn("{} refused ({}): {} [{} more of this cause in the last minute]",
                 rpc, cause, status.ToString(), suppressed);
  } else {
    spdlog::warn("{} refused ({}): {} [logged once per minute per cause]", rpc,
                 cause, status.ToString());
  }
}

}  // namespace colltune::auth
