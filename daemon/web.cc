#include "daemon/web.h"

#include <limits.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <httplib.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/catalog.h"
#include "proto/colltune.pb.h"

namespace colltune::daemon {
namespace {

// Bodies of state-changing requests are tiny; anything larger is hostile.
constexpr size_t kMaxBodyBytes = 64 << 10;

// Types spelled so that cpp-httplib does not compress the body: Debian's
// build compresses with brotli at its slowest setting, which made a 500 KB
// answer take a second; on loopback or a LAN the plain bytes are faster.
constexpr char kJson[] = "application/json; charset=utf-8";

// The page loads its script, styles and chart library from this server
// only; even a string that got past the page's escaping could not run.
constexpr char kPolicy[] =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'";

int HttpStatusOf(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk: return 200;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange: return 400;
    case absl::StatusCode::kUnauthenticated: return 401;
    case absl::StatusCode::kPermissionDenied: return 403;
    case absl::StatusCode::kNotFound: return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kFailedPrecondition: return 409;
    case absl::StatusCode::kResourceExhausted: return 429;
    case absl::StatusCode::kUnavailable: return 503;
    default: return 500;
  }
}

// {"error": {"code": "INVALID_ARGUMENT", "message": "..."}}, built as a
// proto Struct so that the message is escaped by the same JSON writer.
std::string ErrorJson(const absl::Status& status) {
  google::protobuf::Struct body;
  google::protobuf::Struct* error =
      (*body.mutable_fields())["error"].mutable_struct_value();
  (*error->mutable_fields())["code"].set_string_value(
      absl::StatusCodeToString(status.code()));
  // Messages may quote the request (a path, a parameter): bytes other than
  // printable ASCII become '?', so the answer is always valid UTF-8.
  std::string message(status.message());
  for (char& ch : message) {
    if (ch < 0x20 || ch > 0x7e) ch = '?';
  }
  (*error->mutable_fields())["message"].set_string_value(message);
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(body, &out);
  return out;
}

void SendError(const absl::Status& status, httplib::Response& res) {
  res.status = HttpStatusOf(status.code());
  res.set_content(ErrorJson(status), kJson);
}

void SendMessage(const google::protobuf::Message& message,
                 httplib::Response& res) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string out;
  auto s = google::protobuf::util::MessageToJsonString(message, &out, options);
  if (!s.ok()) {
    SendError(absl::InternalError(std::string(s.message())), res);
    return;
  }
  res.status = 200;
  res.set_content(out, kJson);
}

template <typename Response>
void Send(const absl::StatusOr<Response>& r, httplib::Response& res) {
  if (!r.ok()) {
    SendError(r.status(), res);
  } else {
    SendMessage(*r, res);
  }
}

// A path segment that must be a positive id (profile, pin, version).
absl::StatusOr<int64_t> ParseId(const std::string& text, std::string_view what,
                                bool zero_ok = false) {
  int64_t id = 0;
  if (text.empty() || text.size() > 19 || !absl::SimpleAtoi(text, &id) ||
      id < (zero_ok ? 0 : 1) ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(what), " must be a ", std::string(zero_ok ? "non-negative" : "positive"),
                     " integer, not '", text.substr(0, 40), "'"));
  }
  return id;
}

// Query parameters other than `allowed` are refused, so that a mistyped
// filter is an error rather than a silently unfiltered answer.
absl::Status OnlyParams(const httplib::Request& req,
                        const std::set<std::string>& allowed) {
  for (const auto& [name, value] : req.params) {
    if (allowed.count(name) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown query parameter '", name.substr(0, 40), "'"));
    }
  }
  return absl::OkStatus();
}

// Fills `message` from a JSON request body; unknown fields are errors.
absl::Status ParseBody(const httplib::Request& req,
                       google::protobuf::Message* message) {
  if (req.body.empty()) return absl::OkStatus();
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto s = google::protobuf::util::JsonStringToMessage(req.body, message, options);
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("request body: ", std::string(s.message()).substr(0, 200)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(
        "web view: cannot read ", path,
        " (run scripts/install-deps.sh in a source tree, or pass --web-dir)"));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// "8080" -> (127.0.0.1, 8080); "0.0.0.0:80"; "[::1]:8080".
absl::StatusOr<std::pair<std::string, int>> ParseAddress(const std::string& a) {
  std::string host = "127.0.0.1", port = a;
  if (!a.empty() && a[0] == '[') {
    const size_t close = a.find("]:");
    if (close == std::string::npos) {
      return absl::InvalidArgumentError("--http: expected [V6]:PORT, not " + a);
    }
    host = a.substr(1, close - 1);
    port = a.substr(close + 2);
  } else if (const size_t colon = a.rfind(':'); colon != std::string::npos) {
    host = a.substr(0, colon);
    port = a.substr(colon + 1);
  }
  int number = 0;
  if (host.empty() || !absl::SimpleAtoi(port, &number) || number < 0 ||
      number > 65535) {
    return absl::InvalidArgumentError(
        "--http: expected PORT, HOST:PORT or [V6]:PORT, not '" + a + "'");
  }
  return std::make_pair(host, number);
}

}  // namespace

std::string DefaultWebDir() {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "web";
  std::string path(exe, static_cast<size_t>(n));
  const size_t bin = path.rfind('/');
  const size_t prefix = bin == 0 ? std::string::npos : path.rfind('/', bin - 1);
  if (bin == std::string::npos || prefix == std::string::npos) return "web";
  return path.substr(0, prefix) + "/share/colltune/web";
}

WebServer::WebServer(Tuner* tuner, const auth::AdminToken* token,
                     const Metrics* metrics)
    : tuner_(tuner),
      token_(token),
      metrics_(metrics),
      server_(std::make_unique<httplib::Server>()) {}

WebServer::~WebServer() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

absl::StatusOr<std::unique_ptr<WebServer>> WebServer::Start(
    const WebOptions& options, Tuner* tuner, const auth::AdminToken* token,
    const Metrics* metrics) {
  absl::StatusOr<std::pair<std::string, int>> address =
      ParseAddress(options.address);
  if (!address.ok()) return address.status();
  std::unique_ptr<WebServer> web(new WebServer(tuner, token, metrics));
  const std::pair<const char*, const char*> kFiles[] = {
      {"index.html", "text/html; charset=utf-8"},
      {"view.js", "application/javascript; charset=utf-8"},
      {"charts.js", "application/javascript; charset=utf-8"},
      {"sections.js", "application/javascript; charset=utf-8"},
      {"app.js", "application/javascript; charset=utf-8"},
      {"style.css", "text/css; charset=utf-8"},
      {"vendor/chart.umd.js", "application/javascript; charset=utf-8"},
  };
  for (const auto& [name, type] : kFiles) {
    absl::StatusOr<std::string> body = ReadFile(options.web_dir + "/" + name);
    if (!body.ok()) return body.status();
    web->files_["/" + std::string(name)] = {type, std::move(*body)};
  }
  web->files_["/"] = web->files_["/index.html"];
  web->Route();
  const int threads = options.threads;
  web->server_->new_task_queue = [threads] {
    return new httplib::ThreadPool(static_cast<size_t>(threads));
  };
  web->server_->set_payload_max_length(kMaxBodyBytes);
  // cpp-httplib's default also sets SO_REUSEPORT, with which a second
  // daemon would share a port silently instead of failing to start.
  web->server_->set_socket_options([](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // A browser keeps up to six connections open and each holds a thread
  // while it idles: a short idle time keeps the pool free for new pages.
  web->server_->set_keep_alive_timeout(1);
  web->server_->set_read_timeout(10, 0);
  web->server_->set_write_timeout(10, 0);
  const auto& [host, port] = *address;
  int bound = port;
  if (port == 0) {
    bound = web->server_->bind_to_any_port(host);
    if (bound < 0) bound = 0;
  } else if (!web->server_->bind_to_port(host, port)) {
    bound = 0;
  }
  if (bound <= 0) {
    return absl::UnavailableError(absl::StrCat(
        "web view: cannot listen on ", host, ":", port,
        " (in use, or not an address of this host)"));
  }
  web->host_ = host;
  web->port_ = bound;
  httplib::Server* server = web->server_.get();
  web->thread_ = std::thread([server] { server->listen_after_bind(); });
  return web;
}

void WebServer::Route() {
  httplib::Server& s = *server_;
  s.set_default_headers({
      {"Content-Security-Policy", kPolicy},
      {"X-Content-Type-Options", "nosniff"},
      {"X-Frame-Options", "DENY"},
      {"Referrer-Policy", "no-referrer"},
      {"Cache-Control", "no-store"},
  });
  // Errors that reach no handler (unknown path or method, a body over the
  // limit) get the API's JSON error shape too.
  s.set_error_handler(httplib::Server::HandlerWithResponse(
      [](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    absl::Status status;
    if (res.status == 413) {
      status = absl::InvalidArgumentError(
          absl::StrCat("request body over ", kMaxBodyBytes, " bytes"));
    } else if (res.status == 404) {
      status = absl::NotFoundError(
          absl::StrCat("no such page or endpoint: ", req.method, " ",
                       req.path.substr(0, 100)));
    } else {
      status = absl::InvalidArgumentError(
          absl::StrCat("bad request (HTTP ", res.status, ")"));
    }
    const int code = res.status;
    res.set_content(ErrorJson(status), kJson);
    res.status = code;
    return httplib::Server::HandlerResponse::Handled;
  }));
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res,
                             std::exception_ptr) {
    SendError(absl::InternalError("internal error"), res);
  });

  for (const auto& [path, file] : files_) {
    const std::pair<std::string, std::string>* f = &file;
    // Routes are regular expressions: the file names' dots are literal.
    std::string pattern;
    for (char ch : path) {
      if (ch == '.') pattern += '\\';
      pattern += ch;
    }
    s.Get(pattern, [f](const httplib::Request& req, httplib::Response& res) {
      res.set_content(f->second, f->first.c_str());
    });
  }

  // Prometheus's scrape: the text exposition format, version 0.0.4.
  if (metrics_ != nullptr) {
    s.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
      if (absl::Status p = OnlyParams(req, {}); !p.ok()) return SendError(p, res);
      absl::StatusOr<TunerState> state = tuner_->State();
      if (!state.ok()) return SendError(state.status(), res);
      res.set_content(metrics_->Render(*state),
                      "text/plain; version=0.0.4; charset=utf-8");
    });
  }

  // Read-only API.
  s.Get("/api/v1/profiles", [this](const httplib::Request& req,
                                    httplib::Response& res) {
    if (absl::Status p = OnlyParams(req, {"cluster", "library"}); !p.ok()) {
      return SendError(p, res);
    }
    v1::ListProfilesRequest r;
    r.set_cluster(req.get_param_value("cluster"));
    r.set_library(req.get_param_value("library"));
    Send(tuner_->ListProfiles(r), res);
  });
  s.Get("/api/v1/algorithms", [](const httplib::Request& req,
                                  httplib::Response& res) {
    if (absl::Status p = OnlyParams(req, {}); !p.ok()) return SendError(p, res);
    google::protobuf::Struct body;
    google::protobuf::ListValue* list =
        (*body.mutable_fields())["algorithms"].mutable_list_value();
    for (int i = 0; i < kNumAlgorithms; ++i) {
      const AlgorithmInfo& a = InfoOf(static_cast<Algorithm>(i));
      google::protobuf::Struct* item = list->add_values()->mutable_struct_value();
      (*item->mutable_fields())["name"].set_string_value(std::string(a.name));
      (*item->mutable_fields())["collective"].set_string_value(
          a.id == Algorithm::kDefault ? "" : std::string(InfoOf(a.collective).name));
      (*item->mutable_fields())["summary"].set_string_value(std::string(a.summary));
      (*item->mutable_fields())["guideline"].set_string_value(
          std::string(a.guideline));
      // The libraries' own algorithms (native:<name>) are drawn and reported
      // apart from the mock-ups: a page should not guess from the name.
      (*item->mutable_fields())["native"].set_bool_value(a.native());
      // Chosen for a whole job at launch (coll/han): shown, never pinned.
      (*item->mutable_fields())["whole_job"].set_bool_value(a.at_launch);
      google::protobuf::ListValue* libraries =
          (*item->mutable_fields())["libraries"].mutable_list_value();
      if (a.libraries & kOpenMpi) libraries->add_values()->set_string_value("Open MPI");
      if (a.libraries & kMpich) libraries->add_values()->set_string_value("MPICH");
    }
    SendMessage(body, res);
  });
  s.Get(R"(/api/v1/profiles/([^/]+))", [this](const httplib::Request& req,
                                               httplib::Response& res) {
    if (absl::Status p = OnlyParams(req, {}); !p.ok()) return SendError(p, res);
    absl::StatusOr<int64_t> id = ParseId(req.matches[1], "profile id");
    if (!id.ok()) return SendError(id.status(), res);
    v1::GetProfileRequest r;
    r.set_id(*id);
    Send(tuner_->GetProfile(r), res);
  });
  s.Get(R"(/api/v1/profiles/([^/]+)/(history|violations|pins|jobs))",
        [this](const httplib::Request& req, httplib::Response& res) {
          const std::string what = req.matches[2];
          if (absl::Status p = OnlyParams(
                  req, what == "jobs" ? std::set<std::string>{"limit"}
                                      : std::set<std::string>{});
              !p.ok()) {
            return SendError(p, res);
          }
          absl::StatusOr<int64_t> id = ParseId(req.matches[1], "profile id");
          if (!id.ok()) return SendError(id.status(), res);
          if (what == "history") {
            v1::GetTableHistoryRequest r;
            r.set_profile_id(*id);
            return Send(tuner_->GetTableHistory(r), res);
          }
          if (what == "violations") {
            v1::GetViolationsRequest r;
            r.set_profile_id(*id);
            return Send(tuner_->GetViolations(r), res);
          }
          if (what == "pins") {
            v1::ListPinsRequest r;
            r.set_profile_id(*id);
            return Send(tuner_->ListPins(r), res);
          }
          v1::ListJobReportsRequest r;
          r.set_profile_id(*id);
          if (req.has_param("limit")) {
            absl::StatusOr<int64_t> limit =
                ParseId(req.get_param_value("limit"), "limit");
            if (!limit.ok()) return SendError(limit.status(), res);
            // The Tuner owns the range; clamping keeps a huge value huge.
            r.set_limit(static_cast<int32_t>(std::min<int64_t>(*limit, INT32_MAX)));
          }
          Send(tuner_->ListJobReports(r), res);
        });
  s.Get(R"(/api/v1/profiles/([^/]+)/tables/([^/]+))",
        [this](const httplib::Request& req, httplib::Response& res) {
          if (absl::Status p = OnlyParams(req, {}); !p.ok()) return SendError(p, res);
          absl::StatusOr<int64_t> id = ParseId(req.matches[1], "profile id");
          if (!id.ok()) return SendError(id.status(), res);
          absl::StatusOr<int64_t> version =
              ParseId(req.matches[2], "table version", /*zero_ok=*/true);
          if (!version.ok()) return SendError(version.status(), res);
          v1::GetTableVersionRequest r;
          r.set_profile_id(*id);
          r.set_version(*version);
          Send(tuner_->GetTableVersion(r), res);
        });

  // State-changing API: POST with the admin token. The token travels in a
  // custom header, which a cross-site form cannot send, and no CORS header
  // is ever served, so another site's script cannot send it either.
  auto admin = [this](const httplib::Request& req) -> absl::Status {
    if (absl::Status t = token_->Check(req.get_header_value(auth::kAdminTokenHeader));
        !t.ok()) {
      return t;
    }
    // A form-encoded body would be read as query parameters; only JSON is
    // accepted.
    if (!req.body.empty() &&
        req.get_header_value("Content-Type").rfind("application/json", 0) != 0) {
      return absl::InvalidArgumentError(
          "the request body must be JSON (Content-Type: application/json)");
    }
    return OnlyParams(req, {});
  };
  s.Post(R"(/api/v1/profiles/([^/]+)/rollback)",
         [this, admin](const httplib::Request& req, httplib::Response& res) {
           if (absl::Status a = admin(req); !a.ok()) return SendError(a, res);
           absl::StatusOr<int64_t> id = ParseId(req.matches[1], "profile id");
           if (!id.ok()) return SendError(id.status(), res);
           v1::RollbackTableRequest r;
           if (absl::Status b = ParseBody(req, &r); !b.ok()) return SendError(b, res);
           if (r.profile_id() != 0 && r.profile_id() != *id) {
             return SendError(absl::InvalidArgumentError(
                                  "profile_id in the body differs from the path"),
                              res);
           }
           r.set_profile_id(*id);
           Send(tuner_->RollbackTable(r), res);
         });
  s.Post(R"(/api/v1/profiles/([^/]+)/pins)",
         [this, admin](const httplib::Request& req, httplib::Response& res) {
           if (absl::Status a = admin(req); !a.ok()) return SendError(a, res);
           absl::StatusOr<int64_t> id = ParseId(req.matches[1], "profile id");
           if (!id.ok()) return SendError(id.status(), res);
           v1::PinRequest r;
           if (absl::Status b = ParseBody(req, r.mutable_pin()); !b.ok()) {
             return SendError(b, res);
           }
           if (r.pin().profile_id() != 0 && r.pin().profile_id() != *id) {
             return SendError(absl::InvalidArgumentError(
                                  "profile_id in the body differs from the path"),
                              res);
           }
           r.mutable_pin()->set_profile_id(*id);
           Send(tuner_->Pin(r), res);
         });
  s.Post(R"(/api/v1/profiles/([^/]+)/pins/([^/]+)/unpin)",
         [this, admin](const httplib::Request& req, httplib::Response& res) {
           if (absl::Status a = admin(req); !a.ok()) return SendError(a, res);
           absl::StatusOr<int64_t> id = ParseId(req.matches[1], "profile id");
           if (!id.ok()) return SendError(id.status(), res);
           absl::StatusOr<int64_t> pin = ParseId(req.matches[2], "pin id");
           if (!pin.ok()) return SendError(pin.status(), res);
           v1::UnpinRequest r;
           r.set_profile_id(*id);
           r.set_pin_id(*pin);
           Send(tuner_->Unpin(r), res);
         });
}

}  // namespace colltune::daemon
