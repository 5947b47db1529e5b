// Who may upload, and how fast (colltuned --auth).
//
// Promises: an upload or job report is accepted only from a sender someone
// vouches for (munged, or the kernel for a unix-socket peer), unless the
// administrator accepts anonymous uploads; a credential must be bound to the
// request it came with; every sender (anonymous ones sharing one) has a
// rate; reads never need a credential; every refusal is logged, at most once
// per cause per minute. The modes in full: docs/architecture.md, "Trust
// model".
#ifndef COLLTUNE_AUTH_UPLOAD_AUTH_H_
#define COLLTUNE_AUTH_UPLOAD_AUTH_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "auth/binding.h"
#include "auth/peer_credentials.h"
#include "auth/rate_limit.h"
#include "auth/uploader.h"

namespace colltune::auth {

struct AuthOptions {
  enum class Mode { kNone, kMunge };
  Mode mode = Mode::kNone;
  std::string munge_socket;  // empty: libmunge's default
  std::string admin_group;   // empty: only uid 0 administers through MUNGE
  // --auth none: accept uploads whose sender nobody vouches for (TCP).
  bool anonymous_uploads = false;
  // Token buckets per uid, anonymous senders sharing one (0: unlimited).
  double reports_per_uid_per_minute = 120;
  double uploads_per_uid_per_minute = 1200;
};

class UploadAuth {
 public:
  // Resolves --admin-group; NOT_FOUND for an unknown group.
  static absl::StatusOr<std::unique_ptr<UploadAuth>> Create(const AuthOptions& o);

  bool munge() const { return options_.mode == AuthOptions::Mode::kMunge; }

  // For ReportJob (report = true) and UploadMeasurements: the sender of
  // `credential` (empty: none presented), or with none the unix-socket
  // `peer` (nullopt: not on the unix socket, or unidentified; `on_socket`
  // tells which). --auth none: the peer, an unidentified sender on the unix
  // socket, or over TCP an unknown sender if anonymous uploads are accepted.
  // Refusals: UNAUTHENTICATED (no credential and no peer; forged, expired,
  // replayed credential; --auth none: no peer and anonymous uploads not
  // accepted), PERMISSION_DENIED (bound to another request, or made by
  // another uid than the peer's), INVALID_ARGUMENT (an oversized
  // credential), RESOURCE_EXHAUSTED (the uid's rate, or the anonymous
  // senders'), UNAVAILABLE (munged down). *cause gets a short fixed name of
  // the reason.
  absl::StatusOr<Uploader> Authenticate(std::string_view credential,
                                        const Binding& expected,
                                        const std::optional<PeerIdentity>& peer,
                                        bool on_socket, bool report, std::string* cause);

  // An administrative call's credential (or, with none, its unix-socket
  // peer; --auth munge only): OK for uid 0 or an --admin-group member, with
  // the binding matching and munged's uid the peer's.
  absl::Status AuthorizeAdmin(std::string_view credential,
                              const Binding& expected,
                              const std::optional<PeerIdentity>& peer,
                              std::string* cause);

  // Logs `status` for `rpc` unless this cause was logged within a minute.
  void LogRefusal(std::string_view rpc, std::string_view cause,
                  const absl::Status& status);

 private:
  explicit UploadAuth(const AuthOptions& o)
      : options_(o),
        reports_(o.reports_per_uid_per_minute),
        uploads_(o.uploads_per_uid_per_minute) {}
  absl::StatusOr<Uploader> Decode(std::string_view credential,
                                  const Binding& expected, std::string* cause,
                                  std::string* payload_rpc);
  // The sender: the credential's (checked against the peer), else the peer.
  absl::StatusOr<Uploader> Identify(std::string_view credential,
                                    const Binding& expected,
                                    const std::optional<PeerIdentity>& peer,
                                    std::string* cause);
  absl::Status RequireAdmin(const Uploader& who, std::string* cause) const;
  // RESOURCE_EXHAUSTED when `who` (uid -1: the anonymous senders) has used
  // up its rate.
  absl::Status TakeRate(const Uploader& who, bool report, std::string* cause);
  bool InAdminGroup(uid_t uid, gid_t gid) const;

  AuthOptions options_;
  std::optional<gid_t> admin_gid_;
  TokenBuckets reports_, uploads_;
  LogLimiter log_;
};

}  // namespace colltune::auth

#endif  // COLLTUNE_AUTH_UPLOAD_AUTH_H_
