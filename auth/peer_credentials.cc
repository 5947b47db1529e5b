#include "auth/peer_credentials.h"

#include <climits>
#include <fstream>
#include <sstream>
#include <string>

namespace colltune::auth {
namespace {

int64_t ReadNumber(const char* path, int64_t fallback) {
  std::ifstream in(path);
  int64_t v = 0;
  return in >> v ? v : fallback;
}

IdMapping Current(const char* map_path, const char* overflow_path) {
  std::ifstream in(map_path);
  if (!in) return IdMapping();
  std::stringstream text;
  text << in.rdbuf();
  std::optional<IdMapping> m =
      IdMapping::Parse(text.str(), ReadNumber(overflow_path, 65534));
  return m ? *m : IdMapping();
}

}  // namespace

std::optional<IdMapping> IdMapping::Parse(std::string_view map, int64_t overflow) {
  IdMapping m;
  m.complete_ = false;
  m.overflow_ = overflow;
  std::istringstream in{std::string(map)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    uint64_t inside = 0, outside = 0, count = 0;
    if (!(fields >> inside)) continue;  // a blank line
    if (!(fields >> outside >> count)) return std::nullopt;
    std::string rest;
    if (fields >> rest) return std::nullopt;
    if (inside == 0 && count == 4294967295ULL) m.complete_ = true;
    m.ranges_.push_back({inside, inside + count});
  }
  if (m.ranges_.empty()) return std::nullopt;
  return m;
}

IdMapping IdMapping::CurrentUids() {
  return Current("/proc/self/uid_map", "/proc/sys/kernel/overflowuid");
}

IdMapping IdMapping::CurrentGids() {
  return Current("/proc/self/gid_map", "/proc/sys/kernel/overflowgid");
}

bool IdMapping::Vouches(int64_t id) const {
  if (id < 0) return false;
  if (complete_) return true;
  // The overflow id stands for every unmapped id, so it names no one, even
  // when the namespace maps it too.
  if (id == overflow_) return false;
  for (const auto& [first, end] : ranges_) {
    if (static_cast<uint64_t>(id) >= first && static_cast<uint64_t>(id) < end) {
      return true;
    }
  }
  return false;
}

// Why a descriptor number is a sound key although numbers are reused: gRPC
// 1.51 gives a call no way to its connection, and names every connection it
// accepted itself on a unix socket just "unix:", hence the handover
// (grpc::AddInsecureChannelFromFd names it "fd:<N>"). A call holds its
// stream, the stream its transport, and the transport closes its endpoint
// (the descriptor) only when it is destroyed (chttp2's
// ~grpc_chttp2_transport -> grpc_endpoint_destroy; a disconnect only shuts
// the socket down). So while a call exists its connection's descriptor is
// open and no accept() can return the same number; when accept() does return
// it again, the old connection and all its calls are gone, and Record()
// overwrites the entry before gRPC sees the new connection. Only connections
// handed over by this process's accept loop have "fd:" peers (gRPC's own TCP
// listener names its peers "ipv4:..."/"ipv6:..."), so a number reused by
// anything else (a database file, a TCP connection) is never looked up.
void PeerCredentials::Record(int fd, pid_t pid, uid_t uid, gid_t gid) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!uids_.Vouches(uid)) {
    // Unidentified; and nothing of an earlier connection with this number
    // may be left behind.
    by_fd_.erase(fd);
    return;
  }
  PeerIdentity id;
  id.pid = pid;
  id.uid = uid;
  id.gid = gids_.Vouches(gid) ? static_cast<int64_t>(gid) : -1;
  by_fd_[fd] = id;
}

std::optional<PeerIdentity> PeerCredentials::Find(std::string_view peer) const {
  std::optional<int> fd = ParseFdPeer(peer);
  if (!fd) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_fd_.find(*fd);
  if (it == by_fd_.end()) return std::nullopt;
  return it->second;
}

std::optional<int> PeerCredentials::ParseFdPeer(std::string_view peer) {
  constexpr std::string_view kPrefix = "fd:";
  if (peer.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view digits = peer.substr(kPrefix.size());
  if (digits.empty() || digits.size() > 10) return std::nullopt;
  int64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n > INT_MAX) return std::nullopt;
  return static_cast<int>(n);
}

}  // namespace colltune::auth
