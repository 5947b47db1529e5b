// Who may upload, and how fast (colltuned --auth munge).
//
// With --auth munge, ReportJob and UploadMeasurements must carry a MUNGE
// credential (metadata key kMungeHeader) bound to the request
// (auth/binding.h). It is decoded by the munged at --munge-socket: munged
// vouches for the sender's uid and gid and refuses credentials that are
// forged (another key), expired or replayed; the binding must then match the
// request received. The uid is rate-limited (a token bucket per uid) and
// recorded with the report or the campaign launch. Reads never need a
// credential.
//
// Administrative calls (rollback, pin, unpin) accept the admin token as
// before, or a MUNGE credential bound to the call from uid 0 or from a
// member of --admin-group.
//
// On the unix socket the kernel names the sender (SO_PEERCRED,
// peer_credentials.h), as trustworthy as munged's word: with --auth munge,
// an upload or an administrative call that comes without a credential is
// that peer's (same rate limits, same --online-min-uids rule, no Slurm job
// id); one that comes with a credential is verified as before and refused
// when munged's uid is not the peer's. With --auth none a unix-socket
// peer's uid and gid are recorded with its reports and campaign launches
// (service.cc) and administrative calls still need the token; an upload
// nobody vouches for (TCP) is refused unless the administrator accepts
// anonymous uploads (--insecure-accept-anonymous-uploads), and then it is
// recorded with no uid, which never counts toward --online-min-uids. The
// rate limits hold in every mode: per uid, and anonymous senders share one
// bucket.
//
// Every refusal is logged, at most once per cause per minute.
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
