// The web face of colltuned: the admin page (static files from web/) and a
// JSON API over the same Tuner the gRPC service uses. Every API response
// body is a proto message of proto/colltune.proto in protobuf's JSON mapping
// (field names as in the proto, int64 as strings, defaults printed), so the
// proto stays the one definition of every message; docs/web-api.md lists
// the endpoints.
//
// Read-only unless a request is a POST carrying the admin token (header
// auth::kAdminTokenHeader): rollback, pin, unpin. Static files are read once at
// start from a fixed list, so no request path ever reaches the file system.
#ifndef COLLTUNE_DAEMON_WEB_H_
#define COLLTUNE_DAEMON_WEB_H_

#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "auth/admin_token.h"
#include "daemon/metrics.h"
#include "daemon/tuner.h"

namespace httplib {
class Server;
}

namespace colltune::daemon {

struct WebOptions {
  // "PORT" (loopback), "HOST:PORT" or "[V6]:PORT"; port 0 picks a free one.
  std::string address;
  // Holds index.html, view.js, charts.js, sections.js, app.js, style.css and
  // vendor/chart.umd.js.
  std::string web_dir;
  // Each open connection holds one; browsers open up to six per page.
  int threads = 16;
};

class WebServer {
 public:
  // Reads the page's files, binds and starts serving on a thread of its own.
  // With `metrics`, GET /metrics serves them in Prometheus's text format.
  static absl::StatusOr<std::unique_ptr<WebServer>> Start(
      const WebOptions& options, Tuner* tuner, const auth::AdminToken* token,
      const Metrics* metrics = nullptr);
  ~WebServer();  // stops serving

  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  const std::string& host() const { return host_; }
  int port() const { return port_; }

 private:
  WebServer(Tuner* tuner, const auth::AdminToken* token, const Metrics* metrics);
  void Route();

  Tuner* tuner_;
  const auth::AdminToken* token_;
  const Metrics* metrics_;
  std::unique_ptr<httplib::Server> server_;
  // path -> (content type, body)
  std::map<std::string, std::pair<std::string, std::string>> files_;
  std::string host_;
  int port_ = 0;
  std::thread thread_;
};

// The installed page: PREFIX/share/colltune/web next to PREFIX/bin/colltuned.
std::string DefaultWebDir();

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_WEB_H_
