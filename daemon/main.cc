// colltuned: the per-cluster daemon. Keeps profiles in SQLite and serves
// decision tables over gRPC. See docs/operators-guide.md.
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "absl/synchronization/mutex.h"
#include "auth/munge.h"
#include "common/command_line.h"
#include "common/paths.h"
#include "daemon/engine_flags.h"
#include "daemon/metrics.h"
#include "daemon/service.h"
#include "daemon/tuner.h"
#include "daemon/web.h"
#include "db/store.h"

// colltune_build_info's version label; a release build defines it.
#ifndef COLLTUNE_VERSION
#define COLLTUNE_VERSION "dev"
#endif

namespace {

// The state directory and its parents; one it creates is closed to others
// (it holds the database and the socket).
std::error_code MakeDirs(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::create_directories(dir, ec)) {
    fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec,
                    ec);
  }
  return ec;
}

}  // namespace

int main(int argc, char** argv) {
  // Debian builds Abseil with its mutex deadlock detector on: every
  // absl::Mutex that gRPC takes then updates a lock-order graph, about 5 % of
  // the daemon's CPU per table fetch (perf, scripts/daemon_load.sh). gRPC's
  // own lock order is tested upstream; ours are std::mutex.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  CLI::App app{"colltuned: the colltune daemon (profiles, decisions, gRPC)"};
  std::string state_dir = colltune::DefaultStateDir();
  std::string db_path, listen;
  colltune::daemon::TunerOptions options;
  std::string log_level = "info";
  std::string token_file;
  colltune::daemon::WebOptions web;
  app.add_option("--state-dir", state_dir,
                 "Directory for the default database and socket")
      ->capture_default_str();
  app.add_option("--db", db_path,
                 "SQLite database file (default: STATE_DIR/colltune.db)");
  app.add_option("--listen", listen,
                 "unix:/path or host:port (default: unix:STATE_DIR/colltuned.sock)");
  app.add_option("--cluster", options.cluster,
                 "Cluster name for requests that name none")
      ->capture_default_str();
  colltune::daemon::AddDecisionFlags(app, &options.engine);
  app.add_option("--online-min-jobs", options.engine.min_jobs,
                 "Job reports decide a size bucket once the current choice "
                 "has reports from this many distinct jobs; a challenger "
                 "needs as many of its own")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  app.add_option("--online-min-uids", options.engine.min_uids,
                 "Job reports count for an algorithm only when they come from "
                 "this many distinct uids (munged's, or the unix socket's "
                 "peers'; reports of unknown senders never count)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--online-revert-calls", options.engine.revert_min_calls,
                 "One job reverts a size bucket to default when its explored default "
                 "calls ran faster than the table's choice by the choice's margin, "
                 "each side with at least this many timed calls (0: never)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40))
      ->capture_default_str();
  app.add_option("--online-window", options.online_window,
                 "Newest jobs kept per collective, size bucket and algorithm")
      ->check(CLI::Range(2, 10000))
      ->capture_default_str();
  app.add_option("--online-min-calls", options.min_job_samples,
                 "Timed calls a job needs in a bucket to count there")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  app.add_flag("--reproducible", options.reproducible,
               "Mark every table served reproducible: jobs explore no "
               "alternatives, so their results repeat bit for bit while the "
               "table stays the same (jobs ask for it with "
               "COLLTUNE_REPRODUCIBLE=1 too)");
  app.add_option("--admin-token-file", token_file,
                 "File whose first line is the token that rollback, pin and "
                 "unpin must present (none: they are refused)");
  std::string auth_mode = "none";
  colltune::auth::AuthOptions auth_options;
  std::string tls_cert, tls_key;
  app.add_option("--auth", auth_mode,
                 "Uploads (job reports, campaign measurements): none (anyone "
                 "who reaches the listener) or munge (a MUNGE credential bound "
                 "to the request; the uid is recorded and rate-limited)")
      ->check(CLI::IsMember({"none", "munge"}))
      ->capture_default_str();
  app.add_flag("--insecure-accept-anonymous-uploads", auth_options.anonymous_uploads,
               "With --auth none on a TCP --listen, accept job reports and "
               "campaign uploads nobody vouches for (refused otherwise): anyone "
               "who reaches the port can then add measurements that change "
               "decision tables; job reports of unknown senders never count "
               "toward --online-min-uids");
  app.add_option("--munge-socket", auth_options.munge_socket,
                 "munged's socket (default: libmunge's, /run/munge/munge.socket.2)");
  app.add_option("--admin-group", auth_options.admin_group,
                 "With --auth munge, members of this group (besides uid 0) may "
                 "roll back, pin and unpin with a MUNGE credential instead of "
                 "the token");
  app.add_option("--max-reports-per-uid-per-minute",
                 auth_options.reports_per_uid_per_minute,
                 "Job reports one uid may send per minute, anonymous senders "
                 "sharing one budget (a burst of as many, then the steady rate; "
                 "0: no limit)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  app.add_option("--max-uploads-per-uid-per-minute",
                 auth_options.uploads_per_uid_per_minute,
                 "Campaign uploads (UploadMeasurements) one uid may send per "
                 "minute, anonymous senders sharing one budget (0: no limit)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  app.add_option("--tls-cert", tls_cert,
                 "PEM certificate (chain) for TLS on a TCP --listen (with --tls-key)");
  app.add_option("--tls-key", tls_key, "PEM private key of --tls-cert");
  app.add_option("--http", web.address,
                 "Serve the web view and its JSON API on PORT (loopback), "
                 "HOST:PORT or [V6]:PORT; 0 picks a free port (logged)");
  app.add_option("--web-dir", web.web_dir,
                 "The web view's files (default: PREFIX/share/colltune/web "
                 "next to this binary)");
  app.add_option("--http-threads", web.threads,
                 "Threads answering web requests")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}))
      ->capture_default_str();
  if (std::optional<int> code = colltune::ParseCommandLine(app, argc, argv)) return *code;
  spdlog::set_default_logger(spdlog::stderr_color_mt("colltuned"));
  spdlog::set_level(spdlog::level::from_str(log_level));
  if (db_path.empty() || listen.empty()) {
    if (std::error_code ec = MakeDirs(state_dir)) {
      spdlog::error("cannot create state directory {}: {}", state_dir, ec.message());
      return 1;
    }
  }
  if (db_path.empty()) db_path = state_dir + "/colltune.db";
  if (listen.empty()) listen = "unix:" + state_dir + "/colltuned.sock";

  // Signals are taken by sigwait() below, not by handlers: gRPC's threads
  // inherit this mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  colltune::auth::AdminToken token;
  if (!token_file.empty()) {
    auto loaded = colltune::auth::AdminToken::FromFile(token_file);
    if (!loaded.ok()) {
      spdlog::error("{}", loaded.status().ToString());
      return 1;
    }
    token = *loaded;
  }

  auth_options.mode = auth_mode == "munge"
                         ? colltune::auth::AuthOptions::Mode::kMunge
                         : colltune::auth::AuthOptions::Mode::kNone;
  auto upload_auth = colltune::auth::UploadAuth::Create(auth_options);
  if (!upload_auth.ok()) {
    spdlog::error("{}", upload_auth.status().ToString());
    return 1;
  }
  const bool unix_listener = listen.rfind("unix:", 0) == 0;
  std::unique_ptr<colltune::daemon::TlsFiles> tls;
  if (!tls_cert.empty() || !tls_key.empty()) {
    if (tls_cert.empty() || tls_key.empty() || unix_listener) {
      spdlog::error("--tls-cert and --tls-key go together, with a TCP --listen");
      return 1;
    }
    tls = std::make_unique<colltune::daemon::TlsFiles>();
    for (auto [path, out] : {std::pair{&tls_cert, &tls->cert_pem},
                             std::pair{&tls_key, &tls->key_pem}}) {
      std::ifstream in(*path);
      std::ostringstream text;
      text << in.rdbuf();
      if (!in || text.str().empty()) {
        spdlog::error("cannot read {}", *path);
        return 1;
      }
      *out = text.str();
    }
  }
  if (auth_mode == "munge") {
    // munged must answer now, not at the first upload.
    auto probe = colltune::auth::MungeEncode(auth_options.munge_socket, "probe");
    if (!probe.ok()) {
      spdlog::error("--auth munge: {}", probe.status().ToString());
      return 1;
    }
  } else if (!unix_listener && auth_options.anonymous_uploads) {
    spdlog::warn(
        "WARNING: colltuned listens on TCP {} with --auth none and "
        "--insecure-accept-anonymous-uploads: anyone who can reach it can "
        "upload job reports and campaign measurements that change decision "
        "tables. Use --auth munge (and --tls-cert/--tls-key) on a network "
        "listener.",
        listen);
  } else if (!unix_listener) {
    spdlog::warn(
        "colltuned listens on TCP {} with --auth none: it serves tables and "
        "refuses job reports and campaign uploads, whose senders nobody vouches "
        "for there (--auth munge authenticates them; "
        "--insecure-accept-anonymous-uploads accepts them anyway)",
        listen);
  } else if (auth_options.anonymous_uploads) {
    spdlog::info("--insecure-accept-anonymous-uploads has no effect on a unix "
                 "socket, whose peers the kernel names");
  }

  auto store = colltune::db::Store::Open(db_path);
  if (!store.ok()) {
    spdlog::error("{}", store.status().ToString());
    return 1;
  }
  if ((*store)->read_only()) {
    spdlog::warn("database {} cannot be written (read-only file system): "
                 "serving reads only, uploads and admin changes are refused",
                 db_path);
  }
  colltune::daemon::MetricsOptions metrics_options;
  metrics_options.db_path = db_path;
  metrics_options.version = COLLTUNE_VERSION;
  metrics_options.schema_version = (*store)->schema_version();
  auto metrics = colltune::daemon::Metrics::Create(metrics_options);
  if (!metrics.ok()) {
    spdlog::error("{}", metrics.status().ToString());
    return 1;
  }
  colltune::daemon::Tuner tuner(store->get(), options, metrics->get());
  // Unix-socket peers as the kernel names them (SO_PEERCRED). In a user
  // namespace that maps only some ids (systemd's PrivateUsers=yes), the
  // others all look like the overflow uid and are not identified.
  colltune::auth::PeerCredentials peers(colltune::auth::IdMapping::CurrentUids(),
                                          colltune::auth::IdMapping::CurrentGids());
  if (unix_listener && !colltune::auth::IdMapping::CurrentUids().complete()) {
    spdlog::warn(
        "colltuned runs in a user namespace that maps only some uids (e.g. "
        "systemd PrivateUsers=yes): unix-socket peers of unmapped uids are not "
        "identified{}",
        auth_mode == "munge" ? " and need a MUNGE credential"
                             : ": their job reports never count toward --online-min-uids");
  }
  colltune::daemon::TuningService service(&tuner, &token, upload_auth->get(),
                                          &peers);
  auto server = colltune::daemon::StartServer(listen, &service, metrics->get(),
                                              tls.get(), &peers);
  if (!server.ok()) {
    spdlog::error("{}", server.status().ToString());
    return 1;
  }
  std::unique_ptr<colltune::daemon::WebServer> web_server;
  if (!web.address.empty()) {
    if (web.web_dir.empty()) web.web_dir = colltune::daemon::DefaultWebDir();
    auto started = colltune::daemon::WebServer::Start(web, &tuner, &token,
                                                         metrics->get());
    if (!started.ok()) {
      spdlog::error("{}", started.status().ToString());
      (*server)->Shutdown();
      return 1;
    }
    web_server = std::move(*started);
    const std::string& host = web_server->host();
    spdlog::info("web view on http://{}:{}/",
                 host.find(':') != std::string::npos ? "[" + host + "]" : host,
                 web_server->port());
  }
  spdlog::info(
      "colltuned listening on {}{}, database {} (schema v{}), cluster {}, admin "
      "requests {}, uploads authenticated by {}",
      listen, tls ? " (TLS)" : "", db_path, (*store)->schema_version(),
      options.cluster, token.configured() ? "enabled" : "disabled", auth_mode);

  int signal = 0;
  sigwait(&signals, &signal);
  spdlog::info("signal {}: shutting down", signal);
  web_server.reset();
  (*server)->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::seconds(2));
  return 0;
}
