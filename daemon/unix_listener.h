// colltuned's unix socket, accepted by colltuned itself so that each
// connection's peer is known (peer_credentials.h): a thread accepts,
// records SO_PEERCRED under the new descriptor, and gives the connection to
// the gRPC server (grpc::AddInsecureChannelFromFd).
//
// The socket is made as gRPC made it before: a stale socket file of a dead
// daemon is replaced, a live one is an error, the file's mode is
// 0777 & ~umask (the packaged service's UMask=0011 lets every user connect),
// and the file is removed when the listener is destroyed.
#ifndef COLLTUNE_DAEMON_UNIX_LISTENER_H_
#define COLLTUNE_DAEMON_UNIX_LISTENER_H_

#include <memory>
#include <string>
#include <thread>

#include <grpcpp/server.h>

#include "absl/status/statusor.h"
#include "auth/peer_credentials.h"

namespace colltune::daemon {

class UnixListener {
 public:
  // Binds and listens on `path`. FAILED_PRECONDITION: `path` is something
  // else than a socket; ALREADY_EXISTS: a daemon answers on it.
  static absl::StatusOr<std::unique_ptr<UnixListener>> Listen(const std::string& path);

  // Starts accepting for `server` (started, and alive until Stop()),
  // recording each peer in `peers` (may be null).
  void Serve(grpc::Server* server, auth::PeerCredentials* peers);

  // Stops accepting and waits for the accept thread; connections already
  // handed over stay with gRPC. Idempotent.
  void Stop();

  // Stops, closes the socket and removes its file.
  ~UnixListener();

  UnixListener(const UnixListener&) = delete;
  UnixListener& operator=(const UnixListener&) = delete;

 private:
  UnixListener(std::string path, int fd, int wake_fd)
      : path_(std::move(path)), fd_(fd), wake_fd_(wake_fd) {}
  void AcceptLoop(grpc::Server* server, auth::PeerCredentials* peers);

  std::string path_;
  int fd_;       // the listening socket
  int wake_fd_;  // an eventfd: written once by Stop()
  std::thread thread_;
};

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_UNIX_LISTENER_H_
