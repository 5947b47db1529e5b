// colltuned: the per-cluster daemon. Keeps profiles in SQLite and serves
// decision tables over gRPC. See docs/operators-guide.md.
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "common/paths.h"
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

bool MakeDirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      std::string part = dir.substr(0, i);
      if (mkdir(part.c_str(), 0750) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
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
  app.add_option("--margin", options.engine.margin,
                 "A mock-up replaces default only if at least this much faster")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  app.add_option("--alpha", options.engine.alpha,
                 "Significance level of the rank tests behind decisions")
      ->check(CLI::Range(0.0001, 0.5))
      ->capture_default_str();
  app.add_option("--online-min-jobs", options.engine.min_jobs,
                 "Job reports decide a size bucket once the current choice "
                 "has reports from this many distinct jobs; a challenger "
                 "needs as many of its own")
      ->check(CLI::Range(2, 1000))
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("colltuned"));
  spdlog::set_level(spdlog::level::from_str(log_level));
  if (db_path.empty() || listen.empty()) {
    if (!MakeDirs(state_dir)) {
      spdlog::error("cannot create state directory {}: {}", state_dir,
                    strerror(errno));
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

  colltune::daemon::AdminToken token;
  if (!token_file.empty()) {
    auto loaded = colltune::daemon::AdminToken::FromFile(token_file);
    if (!loaded.ok()) {
      spdlog::error("{}", loaded.status().ToString());
      return 1;
    }
    token = *loaded;
  }

  auto store = colltune::db::Store::Open(db_path);
  if (!store.ok()) {
    spdlog::error("{}", store.status().ToString());
    return 1;
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
  colltune::daemon::TuningService service(&tuner, &token);
  auto server = colltune::daemon::StartServer(listen, &service, metrics->get());
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
      "colltuned listening on {}, database {} (schema v{}), cluster {}, admin "
      "requests {}",
      listen, db_path, (*store)->schema_version(), options.cluster,
      token.configured() ? "enabled" : "disabled");

  int signal = 0;
  sigwait(&signals, &signal);
  spdlog::info("signal {}: shutting down", signal);
  web_server.reset();
  (*server)->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::seconds(2));
  return 0;
}
