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
//      (ReportJob through the gRPC client library, distinct jobs) as fast as
//      the daemon takes them, while one thread reads the web view's profile
//      list and page over HTTP the whole time: reports per minute, and the
//      web reads' latency.
//   3. (with --rate) the paced fetches again while reports arrive at
//      --report-rate a minute (default 10,000, the ingest target), at random
//      times: a site at its stated load, where each report is a write that
//      can change the table a fetch is answered from.
//   0. (--populate-measurements N, --populate-reports M) first fills the
//      daemon's database the way a site's is after months: synthetic
//      campaigns of 5 launches in every regime for communicators of 2, 3, 4,
//      ... processes, about N stored measurements in all, and M job reports.
// Prints one line per figure; exits non-zero if any call failed or, with
// --targets, if a target does not hold: paced fetches p99 below 2 ms (during
// paced ingest too), ingest at least 10,000 reports a minute.
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
#include "common/catalog.h"
#include "common/histogram.h"
#include "common/limits.h"
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

// Uploads synthetic campaigns until about `measurements` points are stored:
// for each communicator size, 5 launches, every collective of the regular
// (size-keyed) kind, default and every mock-up of it, 48 sizes, 3 regimes.
// Returns the points stored, or -1 on a failed upload.
int64_t Populate(colltune::v1::Tuning::Stub* stub, int64_t measurements) {
  using colltune::Algorithm;
  using colltune::Collective;
  const char* kRegimes[] = {"sync", "loop", "imbalance"};
  std::mt19937_64 random(7);
  std::lognormal_distribution<double> noise(0, 0.05);
  int64_t stored = 0;
  // The fetching jobs' size first, then 2, 3, 5, 6, 7, ...
  for (int i = 0; stored < measurements && i < 4096; ++i) {
    const int comm_size = i == 0 ? 4 : i + 1 < 4 ? i + 1 : i + 2;
    for (int launch = 0; launch < 5 && stored < measurements; ++launch) {
      colltune::v1::UploadMeasurementsRequest up;
      auto begin = [&] {
        up.Clear();
        colltune::v1::Context* c = up.mutable_context();
        c->set_library("Open MPI");
        c->set_library_version("4.1.4");
        c->set_comm_size(comm_size);
        c->set_nodes(1);
        c->set_ppn(comm_size);
        up.set_campaign("populate");
        up.set_launch(launch);
        up.set_host("load");
        for (const char* r : kRegimes) up.add_regimes(r);
      };
      auto send = [&](bool partial) {
        up.set_partial(partial);
        colltune::v1::UploadMeasurementsResponse out;
        auto context = colltune::client::WithDeadline(std::chrono::seconds(120));
        const grpc::Status s = stub->UploadMeasurements(context.get(), up, &out);
        if (!s.ok()) {
          fprintf(stderr, "populate: upload failed: %s\n", s.error_message().c_str());
          return false;
        }
        stored += up.measurements_size();
        begin();
        return true;
      };
      begin();
      for (int ci = 0; ci < colltune::kNumCollectives; ++ci) {
        const Collective c = static_cast<Collective>(ci);
        if (colltune::InfoOf(c).irregular || colltune::InfoOf(c).key == colltune::SizeKey::kNone) {
          continue;
        }
        for (int a = 0; a < static_cast<int>(Algorithm::kFirstNative); ++a) {
          const Algorithm alg = static_cast<Algorithm>(a);
          if (!colltune::Implements(alg, c)) continue;
          for (int k = 0; k < 48; ++k) {
            const int64_t bytes = (int64_t{1} << (k / 2)) * (k % 2 ? 3 : 2);
            // A latency model: default linear in the size, mock-ups a fixed
            // factor off it per (collective, algorithm).
            const double base = (2e-6 + bytes * 1e-9) * (1 + comm_size / 16.0);
            const double factor = a == 0 ? 1.0 : 0.7 + 0.1 * ((a * 7 + ci) % 7);
            for (const char* regime : kRegimes) {
              colltune::v1::Measurement* m = up.add_measurements();
              m->set_collective(std::string(colltune::InfoOf(c).name));
              m->set_algorithm(std::string(colltune::InfoOf(alg).name));
              m->set_msg_bytes(bytes);
              m->set_regime(regime);
              for (int s = 0; s < 5; ++s) m->add_samples(base * factor * noise(random));
              if (up.measurements_size() == colltune::limits::kMaxMeasurementsPerUpload &&
                  !send(true)) {
                return -1;
              }
            }
          }
        }
      }
      if (!send(false)) return -1;
    }
  }
  return stored;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"colltune-daemon-load: table fetches and report ingest against colltuned"};
  std::string server, http;
  int clients = 200, fetches = 20, reporters = 4, reports = 2000, comm_size = 4;
  int64_t populate_measurements = 0;
  int populate_reports = 0;
  bool targets = false;
  double rate = 0, report_rate = 10000;
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
  app.add_option("--report-rate", report_rate,
                 "Reports a minute that arrive while the paced fetches run again")
      ->check(CLI::Range(1.0, 1e7));
  app.add_option("--comm-size", comm_size, "Processes of the fetching jobs")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--populate-measurements", populate_measurements,
                 "First store about this many campaign measurements")
      ->check(CLI::Range(int64_t{0}, int64_t{100000000}));
  app.add_option("--populate-reports", populate_reports, "First store this many job reports")
      ->check(CLI::Range(0, 10000000));
  app.add_flag("--targets", targets,
               "Exit non-zero unless paced fetches have p99 < 2 ms (also during paced "
               "ingest) and ingest reaches 10,000 reports/minute");
  CLI11_PARSE(app, argc, argv);
  if (targets && rate <= 0) {
    fprintf(stderr, "colltune-daemon-load: --targets needs --rate (the paced fetches)\n");
    return 2;
  }
  std::atomic<bool> missed{false};

  // 0. A populated database.
  if (populate_measurements > 0 || populate_reports > 0) {
    auto stub = colltune::client::Connect(server);
    const auto t0 = Clock::now();
    const int64_t stored = Populate(stub.get(), populate_measurements);
    if (stored < 0) return 1;
    int report_failures = 0;
    for (int j = 0; j < populate_reports; ++j) {
      colltune::v1::ReportJobRequest r = Report(j);
      r.set_job_id("seed-" + std::to_string(j));
      colltune::v1::ReportJobResponse out;
      auto context = colltune::client::WithDeadline(std::chrono::seconds(30));
      if (!stub->ReportJob(context.get(), r, &out).ok()) ++report_failures;
    }
    printf("populated: %lld measurements uploaded, %d job reports (%d failed) in %.1f s\n",
           static_cast<long long>(stored), populate_reports, report_failures,
           Ms(Clock::now() - t0) / 1e3);
    if (report_failures > 0) return 1;
  }
  // Added to by the paced fetches that run during ingest (their own
  // thread) and by the ingest itself.
  std::atomic<int> failures{0};

  // 1. Table fetches, as rank 0 makes them at MPI_Init.
  std::function<void(const char*, double)> run;
  {
    colltune::wire::TableRequest request;
    request.context.library = "Open MPI";
    request.context.library_version = "4.1.4";
    request.context.comm_size = comm_size;
    request.context.nodes = 1;
    request.context.ppn = comm_size;
    request.decisions_only = true;  // as the shim asks
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
      const double p99 = Percentile(all, 0.99);
      const char* verdict = "";
      if (targets && per_second > 0) {
        verdict = p99 < 2.0 ? "  target p99 < 2 ms: met" : "  target p99 < 2 ms: NOT met";
        if (p99 >= 2.0) missed = true;
      }
      printf("fetch %s: %d clients x %d fetches: p50 %.3f ms  p99 %.3f ms  max %.3f ms%s  "
             "%d failed%s\n",
             name, clients, fetches, Percentile(all, 0.5), p99, Percentile(all, 1.0),
             throughput, failed.load(), verdict);
      failures += failed.load();
    };
    if (rate > 0) {
      char name[64];
      snprintf(name, sizeof name, "paced at %.0f/s", rate);
      run(name, rate);
    }
    run("burst", 0);
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
    const double per_minute = reports / (wall / 60e3);
    const char* verdict = "";
    if (targets) {
      verdict = per_minute >= 10000 ? "  target >= 10,000/minute: met"
                                    : "  target >= 10,000/minute: NOT met";
      if (per_minute < 10000) missed = true;
    }
    printf("ingest: %d reports by %d senders in %.2f s: %.0f reports/minute  %d failed%s\n",
           reports, reporters, wall / 1e3, per_minute, failed.load(), verdict);
    if (!http.empty()) {
      printf("web reads during ingest: %zu, p50 %.3f ms  p99 %.3f ms  %d failed\n",
             web_lat.size(), Percentile(web_lat, 0.5), Percentile(web_lat, 0.99), web_failed);
    }
    failures += failed.load() + web_failed;
  }

  // 3. The paced fetches again while reports arrive at --report-rate.
  if (rate > 0) {
    auto stub = colltune::client::Connect(server);
    std::atomic<bool> fetching{true};
    int sent = 0, failed = 0;
    std::thread reporter([&] {
      std::mt19937_64 random(99);
      std::exponential_distribution<double> gap(report_rate / 60.0);
      auto planned = Clock::now();
      const auto t0 = planned;
      while (fetching.load()) {
        planned += std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(gap(random)));
        std::this_thread::sleep_until(planned);
        colltune::v1::ReportJobResponse out;
        auto context = colltune::client::WithDeadline(std::chrono::seconds(30));
        if (!stub->ReportJob(context.get(), Report(reports + sent), &out).ok()) ++failed;
        ++sent;
      }
      printf("reports during the paced fetches: %d, %.0f a minute (%.0f asked), %d failed\n",
             sent, sent / (Ms(Clock::now() - t0) / 60e3), report_rate, failed);
    });
    char name[96];
    snprintf(name, sizeof name, "paced at %.0f/s during ingest", rate);
    run(name, rate);
    fetching = false;
    reporter.join();
    failures += failed;
  }
  return failures == 0 && !missed ? 0 : 1;
}
