// colltune-daemon-load: what colltuned sustains (scripts/daemon_load.sh).
//
//   1. fetch: --clients threads each fetch the table --fetches times the way
//      MPI_Init does (the shim's own gRPC call, a new connection each time).
//      Two ways, each printing latency percentiles and fetches per second:
//      - burst: every client starts at once and fetches back to back (a closed
//        loop: --clients calls always in flight, so by Little's law the
//        latency is about --clients / throughput, whatever the daemon does);
//      - paced (--rate R): the clients together start R fetches per second at
//        random (Poisson) times, the way independent jobs start; latency
//        counts from the planned start, so a late send is charged to the
//        daemon (no coordinated omission).
//   2. ingest: --reporters threads send --reports job reports in all
//      (ReportJob through the gRPC client library, distinct jobs), while one
//      thread reads the web view's profile list and page over HTTP the whole
//      time: reports per minute, and the web reads' latency. With --rate, the
//      paced fetches run again meanwhile (each report is a write, after
//      which the daemon's cached answers no longer hold).
// Prints one line per figure; exits non-zero if any call failed.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <random>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <httplib.h>

#include "client/client.h"
#include "common/histogram.h"
#include "common/table_wire.h"
#include "proto/colltune.grpc.pb.h"
#include "shim/runtime/grpc_call.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5))];
}

// A start line every thread waits at, so the load arrives at once.
class StartLine {
 public:
  explicit StartLine(int n) : left_(n) {}
  void Arrive() {
    left_.fetch_sub(1);
    while (left_.load() > 0) std::this_thread::yield();
  }

 private:
  std::atomic<int> left_;
};

colltune::v1::ReportJobRequest Report(int job) {
  namespace h = colltune::histogram;
  colltune::v1::ReportJobRequest r;
  colltune::v1::Context* c = r.mutable_context();
  c->set_library("Open MPI");
  c->set_library_version("4.1.4");
  c->set_comm_size(4);
  c->set_nodes(1);
  c->set_ppn(4);
  r.set_job_id("load-" + std::to_string(job));
  r.set_run_id("run-0");
  r.set_final(true);
  r.set_ranks(4);
  for (int k = 0; k < 8; ++k) {
    colltune::v1::JobTiming* t = r.add_timings();
    t->set_collective(k % 2 ? "allreduce" : "bcast");
    t->set_algorithm("default");
    t->set_min_bytes(int64_t{1} << (4 + k));
    t->set_max_bytes((int64_t{2} << (4 + k)) - 1);
    t->set_calls(4000);
    t->set_timed_calls(32);
    t->set_comm_size(4);
    const int bin = h::BinOf(20000 + 1000 * k);
    t->set_first_bin(bin);
    t->add_bins(32);
    t->set_total_seconds(32 * (h::BinLow(bin) + h::BinLow(bin + 1)) / 2 * 1e-9);
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"colltune-daemon-load: table fetches and report ingest against colltuned"};
  std::string server, http;
  int clients = 200, fetches = 20, reporters = 4, reports = 2000, comm_size = 4;
  double rate = 0;
  app.add_option("--server", server, "colltuned's gRPC address")->required();
  app.add_option("--http", http, "colltuned's web view HOST:PORT (read during ingest)");
  app.add_option("--clients", clients, "Concurrent table fetchers")->check(CLI::Range(1, 4096));
  app.add_option("--fetches", fetches, "Fetches per fetcher")->check(CLI::Range(1, 100000));
  app.add_option("--rate", rate,
                 "Also fetch paced: this many fetches per second over all clients, "
                 "at random times")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--reporters", reporters, "Concurrent report senders")
      ->check(CLI::Range(1, 256));
  app.add_option("--reports", reports, "Reports in all")->check(CLI::Range(1, 10000000));
  app.add_option("--comm-size", comm_size, "Processes of the fetching jobs")
      ->check(CLI::Range(1, 1 << 20));
  CLI11_PARSE(app, argc, argv);
  // Added to by the paced fetches that run during ingest (their own
  // thread) and by the ingest itself.
  std::atomic<int> failures{0};

  // 1. Table fetches, as rank 0 makes them at MPI_Init.
  std::function<void(const char*, double)> run;
  {
    colltune::wire::TableRequest request;
    request.library = "Open MPI";
    request.library_version = "4.1.4";
    request.comm_size = comm_size;
    request.nodes = 1;
    request.ppn = comm_size;
    // rate 0: the burst.
    run = [&, bytes = colltune::wire::EncodeGetTableRequest(request)](
              const char* name, double per_second) {
      std::vector<std::vector<double>> lat(clients);
      std::atomic<int> failed{0};
      StartLine start(clients + 1);
      std::vector<std::thread> threads;
      for (int c = 0; c < clients; ++c) {
        threads.emplace_back([&, c] {
          std::mt19937_64 random(c + 1);
          // Each client's share of the rate, as exponential gaps.
          std::exponential_distribution<double> gap(per_second > 0 ? per_second / clients : 1);
          // One unmeasured fetch first: a daemon that has run a while has
          // its threads and memory, and the client thread its stack.
          colltune::shim::CallUnary(server, "/colltune.v1.Tuning/GetTable", bytes, 5000, 1 << 24);
          start.Arrive();
          auto planned = Clock::now();
          for (int i = 0; i < fetches; ++i) {
            if (per_second > 0) {
              planned += std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(gap(random)));
              std::this_thread::sleep_until(planned);
            } else {
              planned = Clock::now();
            }
            auto r = colltune::shim::CallUnary(server, "/colltune.v1.Tuning/GetTable", bytes,
                                               5000, 1 << 24);
            lat[c].push_back(Ms(Clock::now() - planned));
            if (!r.ok) failed.fetch_add(1);
          }
        });
      }
      start.Arrive();
      const auto t0 = Clock::now();
      for (auto& t : threads) t.join();
      const double wall = Ms(Clock::now() - t0);
      std::vector<double> all;
      for (auto& v : lat) all.insert(all.end(), v.begin(), v.end());
      // Paced, the throughput is the rate asked for; the wall time ends
      // with the client whose random gaps happened to be longest.
      char throughput[64] = "";
      if (per_second == 0) snprintf(throughput, sizeof throughput, "  %.0f fetches/s",
                                    all.size() / (wall / 1e3));
      printf("fetch %s: %d clients x %d fetches: p50 %.3f ms  p99 %.3f ms  max %.3f ms%s  "
             "%d failed\n",
             name, clients, fetches, Percentile(all, 0.5), Percentile(all, 0.99),
             Percentile(all, 1.0), throughput, failed.load());
      failures += failed.load();
    };
    if (rate > 0) {
      char name[64];
      snprintf(name, sizeof name, "paced at %.0f/s", rate);
      run(name, rate);
    }
    run("burst", 0);
  }

  // 3. (with --rate) the paced fetches again while reports are ingested: a
  // report changes the store, so the daemon's cached answers do not hold.
  std::thread fetching_during_ingest;
  if (rate > 0) {
    fetching_during_ingest = std::thread([&] { run("paced during ingest", rate); });
  }

  // 2. Report ingest while the web view is read.
  {
    auto stub = colltune::client::Connect(server);
    std::atomic<int> next{0}, failed{0};
    std::atomic<bool> ingesting{true};
    std::vector<double> web_lat;
    int web_failed = 0;
    std::thread reader;
    if (!http.empty()) {
      reader = std::thread([&] {
        const size_t colon = http.rfind(':');
        httplib::Client web(http.substr(0, colon), std::stoi(http.substr(colon + 1)));
        int i = 0;
        while (ingesting.load()) {
          const auto t0 = Clock::now();
          auto res = web.Get(i++ % 2 ? "/api/v1/profiles" : "/");
          web_lat.push_back(Ms(Clock::now() - t0));
          if (!res || res->status != 200) ++web_failed;
        }
      });
    }
    const auto t0 = Clock::now();
    std::vector<std::thread> threads;
    for (int s = 0; s < reporters; ++s) {
      threads.emplace_back([&] {
        for (int j = next.fetch_add(1); j < reports; j = next.fetch_add(1)) {
          colltune::v1::ReportJobResponse out;
          auto context = colltune::client::WithDeadline(std::chrono::seconds(30));
          if (!stub->ReportJob(context.get(), Report(j), &out).ok()) failed.fetch_add(1);
        }
      });
    }
    for (auto& t : threads) t.join();
    const double wall = Ms(Clock::now() - t0);
    ingesting = false;
    if (reader.joinable()) reader.join();
    printf("ingest: %d reports by %d senders in %.2f s: %.0f reports/minute  %d failed\n",
           reports, reporters, wall / 1e3, reports / (wall / 60e3), failed.load());
    if (!http.empty()) {
      printf("web reads during ingest: %zu, p50 %.3f ms  p99 %.3f ms  %d failed\n",
             web_lat.size(), Percentile(web_lat, 0.5), Percentile(web_lat, 0.99), web_failed);
    }
    failures += failed.load() + web_failed;
  }
  if (fetching_during_ingest.joinable()) fetching_during_ingest.join();
  return failures == 0 ? 0 : 1;
}
