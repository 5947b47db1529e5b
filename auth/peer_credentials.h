// Who is at the other end of a unix-socket connection (SO_PEERCRED), for
// the calls that arrive on it. colltuned accepts unix-socket connections
// itself (daemon/unix_listener.h), records each peer here under the
// connection's descriptor and hands the descriptor to gRPC, which names
// every call on it "fd:<N>"; a call finds its sender with
// Find(ctx->peer()). Why a reused descriptor number cannot name the wrong
// peer: peer_credentials.cc.
#ifndef COLLTUNE_AUTH_PEER_CREDENTIALS_H_
#define COLLTUNE_AUTH_PEER_CREDENTIALS_H_

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace colltune::auth {

// What the kernel said about a unix-socket peer. gid is -1 when it cannot
// be trusted (see IdMapping). The pid is informative only (pids are reused).
struct PeerIdentity {
  int64_t pid = 0;
  int64_t uid = -1;
  int64_t gid = -1;
};

// Which ids SO_PEERCRED reports faithfully in this process's user namespace.
// The kernel translates a peer's ids into the reader's namespace; an id that
// has no mapping there comes back as the overflow id (65534). In the initial
// namespace everything is mapped. Under systemd's PrivateUsers=yes only root
// and the service's own user are: every other user would then look like
// "nobody", so the overflow id, when it is not itself mapped, identifies no
// one.
class IdMapping {
 public:
  // Everything mapped (the initial user namespace).
  IdMapping() = default;
  // `map` is the text of /proc/self/uid_map (or gid_map): lines "inside
  // outside count". nullopt when it does not parse.
  static std::optional<IdMapping> Parse(std::string_view map, int64_t overflow);
  // This process's uid or gid mapping; everything mapped when /proc cannot
  // be read.
  static IdMapping CurrentUids();
  static IdMapping CurrentGids();

  // True when an id SO_PEERCRED reported is the peer's real id.
  bool Vouches(int64_t id) const;
  // True when every id is mapped.
  bool complete() const { return complete_; }

 private:
  bool complete_ = true;
  int64_t overflow_ = 65534;
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;  // [first, first + count)
};

class PeerCredentials {
 public:
  PeerCredentials() = default;
  PeerCredentials(IdMapping uids, IdMapping gids)
      : uids_(std::move(uids)), gids_(std::move(gids)) {}

  // The accept loop: connection `fd` was made by (pid, uid, gid), as
  // SO_PEERCRED says. Replaces whatever was recorded for `fd`; a uid the
  // mapping does not vouch for records no identity.
  void Record(int fd, pid_t pid, uid_t uid, gid_t gid);

  // The sender of a call whose ServerContext::peer() is `peer`; nullopt for
  // anything but "fd:<N>" of a recorded connection.
  std::optional<PeerIdentity> Find(std::string_view peer) const;

  // "fd:<N>" -> N (0 <= N <= INT_MAX, decimal digits only); else nullopt.
  static std::optional<int> ParseFdPeer(std::string_view peer);

 private:
  IdMapping uids_, gids_;
  mutable std::mutex mu_;
  std::unordered_map<int, PeerIdentity> by_fd_;
};

}  // namespace colltune::auth

#endif  // COLLTUNE_AUTH_PEER_CREDENTIALS_H_
