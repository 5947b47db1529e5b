#include "daemon/unix_listener.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <grpcpp/server_posix.h>
#include <spdlog/spdlog.h>

namespace colltune::daemon {
namespace {

absl::Status Errno(const std::string& what) {
  return absl::UnavailableError(what + ": " + strerror(errno));
}

sockaddr_un Address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.data(), path.size());
  return addr;
}

// A unix socket path that nobody listens on is left over from a daemon that
// died; one that answers belongs to a running daemon.
absl::Status PrepareUnixSocket(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return absl::OkStatus();
  if (!S_ISSOCK(st.st_mode)) {
    return absl::FailedPreconditionError(path +
                                         " exists and is not a unix socket");
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(strerror(errno));
  sockaddr_un addr = Address(path);
  const bool live =
      connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  if (live) {
    return absl::AlreadyExistsError("another daemon is listening on " + path);
  }
  unlink(path.c_str());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<UnixListener>> UnixListener::Listen(
    const std::string& path) {
  if (path.empty() || path.size() >= sizeof(sockaddr_un::sun_path)) {
    return absl::InvalidArgumentError("unix socket path empty or too long: " + path);
  }
  if (absl::Status s = PrepareUnixSocket(path); !s.ok()) return s;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Errno("socket");
  sockaddr_un addr = Address(path);
  // bind() creates the file with mode 0777 & ~umask, as gRPC's listener did.
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    absl::Status s = Errno("cannot listen on unix:" + path);
    close(fd);
    return s;
  }
  if (listen(fd, SOMAXCONN) != 0) {
    absl::Status s = Errno("listen on unix:" + path);
    close(fd);
    unlink(path.c_str());
    return s;
  }
  int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    absl::Status s = Errno("eventfd");
    close(fd);
    unlink(path.c_str());
    return s;
  }
  return std::unique_ptr<UnixListener>(new UnixListener(path, fd, wake));
}

void UnixListener::Serve(grpc::Server* server, auth::PeerCredentials* peers) {
  thread_ = std::thread([this, server, peers] { AcceptLoop(server, peers); });
}

void UnixListener::AcceptLoop(grpc::Server* server, auth::PeerCredentials* peers) {
  pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  while (true) {
    fds[0].revents = fds[1].revents = 0;
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      spdlog::error("unix socket {}: poll: {}", path_, strerror(errno));
      return;
    }
    if (fds[1].revents != 0) return;  // Stop()
    if (fds[0].revents == 0) continue;
    const int conn = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (conn < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
          errno == ECONNABORTED) {
        continue;
      }
      // Out of descriptors (EMFILE, ENFILE) or memory: the connection waits
      // in the backlog; try again in a while rather than spin.
      spdlog::warn("unix socket {}: accept: {}", path_, strerror(errno));
      poll(&fds[1], 1, 100);
      if (fds[1].revents != 0) return;
      continue;
    }
    ucred cred{};
    socklen_t len = sizeof cred;
    if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
        len != sizeof cred) {
      // Not expected of a unix stream socket; serve the connection as one
      // of an unknown peer.
      spdlog::warn("unix socket {}: SO_PEERCRED: {}", path_, strerror(errno));
      cred.uid = static_cast<uid_t>(-1);
    }
    // Recorded before gRPC sees the connection: its first call finds it.
    if (peers != nullptr) peers->Record(conn, cred.pid, cred.uid, cred.gid);
    // gRPC owns `conn` from here, names the connection "fd:<conn>", and
    // closes it when the connection's transport is destroyed.
    grpc::AddInsecureChannelFromFd(server, conn);
  }
}

void UnixListener::Stop() {
  if (!thread_.joinable()) return;
  const uint64_t one = 1;
  if (write(wake_fd_, &one, sizeof one) != sizeof one) {
    spdlog::error("unix socket {}: cannot wake the accept thread: {}", path_,
                  strerror(errno));
  }
  thread_.join();
}

UnixListener::~UnixListener() {
  Stop();
  close(fd_);
  close(wake_fd_);
  unlink(path_.c_str());
}

}  // namespace colltune::daemon
