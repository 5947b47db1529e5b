// Test and demo helper: fills a running colltuned, through its gRPC API,
// with the realistic profile the web view is specified against: 9
// collectives x 20 message sizes x every mock-up and some of the library's
// own algorithms (native:<name>) x 5 launches x the three regimes, then 1000
// job reports of jobs running the resulting table (with the explored
// default calls a real shim sends), plus two small contexts timed
// synchronized only (as campaigns before regimes): one with
// gatherv at seed 000's block-size distributions, one with a hostile
// cluster, library, campaign and job name. Latencies follow a fixed model
// (seeded noise), so what the engine decides is known to the tests only by
// asking the API, never by copying numbers from here.
//
//   seed_web --server unix:/tmp/x/colltuned.sock [--jobs 1000]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "client/client.h"
#include "common/catalog.h"
#include "common/histogram.h"
#include "common/problems.h"
#include "common/regime.h"
#include "proto/colltune.grpc.pb.h"

namespace {

using colltune::Algorithm;
using colltune::Collective;

// An algorithm runs `inside` times default's latency for sizes 2^lo..2^hi
// and `outside` times elsewhere. Native names repeat across collectives, so
// a native shape names its collective too.
struct Shape {
  const char* algorithm;
  double inside, outside;
  int lo, hi;
  const char* collective = nullptr;  // natives only
  // Its factor against default back to back and after uneven work (regimes,
  // common/regime.h), on top of the above.
  double loop = 1;
};

const Shape kShapes[] = {
    {"allgather_as_gather_bcast", 1.8, 1.8, 0, 0},
    {"allgather_as_alltoall", 0.8, 1.3, 0, 8},
    {"allgather_as_allreduce", 2.5, 2.5, 0, 0},
    {"allgather_as_allgatherv", 1.05, 1.05, 0, 0},
    {"allreduce_as_reduce_bcast", 0.75, 1.2, 10, 16},
    {"allreduce_as_reducescatterblock_allgather", 0.7, 1.4, 17, 19},
    {"allreduce_as_reducescatter_allgatherv", 1.1, 1.1, 0, 0},
    {"alltoall_as_alltoallv", 1.02, 1.02, 0, 0},
    {"bcast_as_allgatherv", 1.5, 1.5, 0, 0},
    {"bcast_as_scatter_allgather", 0.8, 1.6, 16, 19},
    {"gather_as_allgather", 2.0, 2.0, 0, 0},
    {"gather_as_gatherv", 0.6, 1.1, 0, 12},
    {"gather_as_reduce", 3.0, 3.0, 0, 0},
    {"gather_as_tuw_tree", 0.85, 1.3, 17, 19},
    {"reduce_as_allreduce", 1.3, 1.3, 0, 0},
    {"reduce_as_reducescatterblock_gather", 0.8, 1.2, 15, 19},
    // 10 % slower from a barrier, twice as fast back to back and after
    // uneven work: those regimes' switch (regime_switch.h).
    {"reduce_as_reducescatter_gatherv", 1.1, 1.1, 0, 0, nullptr, 0.5},
    {"reducescatterblock_as_reduce_scatter", 1.6, 1.6, 0, 0},
    {"reducescatterblock_as_reducescatter", 1.05, 1.05, 0, 0},
    {"reducescatterblock_as_allreduce", 1.4, 1.4, 0, 0},
    {"scan_as_exscan_reducelocal", 1.2, 1.2, 0, 0},
    {"scatter_as_bcast", 0.9, 2.0, 0, 3},
    {"scatter_as_scatterv", 1.03, 1.03, 0, 0},
    {"scatter_as_tuw_tree", 0.75, 1.2, 11, 15},
    // On one node the hierarchical mock-ups only add their steps.
    {"allreduce_as_nodes", 1.15, 1.15, 0, 0},
    {"allreduce_as_lanes", 1.2, 1.2, 0, 0},
    {"bcast_as_nodes", 1.1, 1.1, 0, 0},
    {"bcast_as_lanes", 1.25, 1.25, 0, 0},
    {"reduce_as_nodes", 1.15, 1.15, 0, 0},
    {"allgather_as_nodes", 1.3, 1.3, 0, 0},
    {"gather_as_nodes", 1.2, 1.2, 0, 0},
    {"gatherv_as_tuw_tree", 0.7, 1.2, 0, 8},
    {"gatherv_as_allreduce_gather", 1.5, 1.5, 0, 0},
    // The library's own algorithms, for the libraries that have them (a
    // context measures only its library's). Faster than default somewhere:
    // the library's selection picks the slower one there (selection
    // violations); the others never beat default.
    {"native:ring", 0.6, 1.3, 16, 19, "allreduce"},
    // Faster from a barrier, twice as slow in a loop: never chosen where the
    // campaign timed every regime.
    {"native:recursive_doubling", 0.85, 1.4, 0, 9, "allreduce", 2.0},
    {"native:basic_linear", 2.0, 2.0, 0, 0, "allreduce"},
    {"native:pipeline", 0.7, 1.5, 17, 19, "bcast"},
    {"native:binomial", 1.04, 1.04, 0, 0, "bcast"},
    {"native:pairwise", 1.2, 1.2, 0, 0, "alltoall"},
};

// Irregular points: seed 000's distributions at three average block sizes.
constexpr int kIrregularSizes[] = {3, 8, 13};

constexpr int kSizes = 20;  // 2^0 .. 2^19 bytes

// Default's latency in seconds: a start-up cost and a per-byte cost per
// collective, and a monotony violation for scatter at 512 bytes.
double DefaultSeconds(Collective c, int log2) {
  const int i = colltune::IndexOf(c);
  const double startup_us = 2.0 + 2.5 * i;
  const double per_kib_us = 0.4 + 0.3 * (i % 4);
  double us = startup_us + per_kib_us * std::ldexp(1.0, log2) / 1024.0;
  if (c == Collective::kScatter && log2 == 9) us *= 1.8;
  return us * 1e-6;
}

bool IsFor(const Shape& s, Collective c) {
  return s.collective == nullptr || colltune::InfoOf(c).name == s.collective;
}

double ModelSeconds(Collective c, const std::string& algorithm, int log2,
                    colltune::Regime regime = colltune::Regime::kSync) {
  double t = DefaultSeconds(c, log2);
  // Back to back calls overlap; after uneven work ranks wait.
  if (regime == colltune::Regime::kLoop) t *= 0.6;
  if (regime == colltune::Regime::kImbalance) t *= 1.3;
  for (const Shape& s : kShapes) {
    if (algorithm == s.algorithm && IsFor(s, c)) {
      const bool in = s.lo == s.hi ? true : (log2 >= s.lo && log2 <= s.hi);
      t *= in ? s.inside : s.outside;
      if (regime != colltune::Regime::kSync) t *= s.loop;
    }
  }
  return t;
}

// What a campaign of `library` measures for `c`: default, the mock-ups and
// the native algorithms that library has, in the shapes' order, then the
// catalogue's other mock-ups (they time as default does).
std::vector<std::string> AlgorithmsOf(Collective c, const std::string& library) {
  std::vector<std::string> out = {"default"};
  for (const Shape& s : kShapes) {
    if (!IsFor(s, c)) continue;
    auto a = colltune::ParseAlgorithm(s.algorithm, c);
    if (!a || *a == colltune::Algorithm::kDefault) continue;
    const colltune::AlgorithmInfo& info = colltune::InfoOf(*a);
    if (info.native() && !(info.libraries & colltune::NativeLibraryOf(library))) {
      continue;
    }
    out.push_back(s.algorithm);
  }
  for (int i = 1; i < colltune::IndexOf(colltune::Algorithm::kFirstNative); ++i) {
    const colltune::AlgorithmInfo& info = colltune::InfoOf(static_cast<Algorithm>(i));
    if (info.collective == c &&
        std::find(out.begin(), out.end(), info.name) == out.end()) {
      out.emplace_back(info.name);
    }
  }
  return out;
}

const Collective kRegular[] = {
    Collective::kAllgather, Collective::kAllreduce, Collective::kAlltoall,
    Collective::kBcast,     Collective::kGather,    Collective::kReduce,
    Collective::kReduceScatterBlock, Collective::kScan, Collective::kScatter,
};

bool Check(const grpc::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "seed_web: %s: %s\n", what, s.error_message().c_str());
  }
  return s.ok();
}

// Uploads `launches` launches of a campaign over `collectives` x `sizes`,
// in every regime (common/regime.h) or, like campaigns before regimes, in
// sync alone.
bool Campaign(colltune::v1::Tuning::Stub* stub, const colltune::v1::Context& ctx,
              const std::string& label, const std::vector<Collective>& collectives,
              int sizes, int launches, int samples, std::mt19937_64* rng,
              bool every_regime = false) {
  std::lognormal_distribution<double> launch_noise(0.0, 0.03);
  std::lognormal_distribution<double> sample_noise(0.0, 0.05);
  for (int launch = 0; launch < launches; ++launch) {
    colltune::v1::UploadMeasurementsRequest r;
    *r.mutable_context() = ctx;
    r.set_campaign(label);
    r.set_launch(launch);
    r.set_host("node001");
    std::vector<colltune::Regime> regimes = {colltune::Regime::kSync};
    if (every_regime) {
      regimes.assign(std::begin(colltune::kAllRegimes), std::end(colltune::kAllRegimes));
      for (colltune::Regime g : regimes) r.add_regimes(std::string(colltune::NameOf(g)));
    }
    for (Collective c : collectives) {
      for (const std::string& a : AlgorithmsOf(c, ctx.library())) {
        auto add = [&](int log2, const std::string& problem, double factor) {
          const double noise = launch_noise(*rng);
          for (colltune::Regime g : regimes) {
            colltune::v1::Measurement* m = r.add_measurements();
            m->set_collective(std::string(colltune::InfoOf(c).name));
            m->set_algorithm(a);
            m->set_msg_bytes(int64_t{1} << log2);
            m->set_problem(problem);
            m->set_regime(std::string(colltune::NameOf(g)));
            const double median = ModelSeconds(c, a, log2, g) * factor * noise;
            for (int k = 0; k < samples; ++k) {
              m->add_samples(median * sample_noise(*rng));
            }
          }
        };
        if (colltune::InfoOf(c).irregular) {
          double factor = 1;
          for (colltune::Problem problem : colltune::kAllProblems) {
            for (int log2 : kIrregularSizes) {
              add(log2, std::string(colltune::NameOf(problem)), factor);
            }
            factor += 0.1;
          }
        } else {
          for (int log2 = 0; log2 < sizes; ++log2) add(log2, "", 1);
        }
      }
    }
    colltune::v1::UploadMeasurementsResponse out;
    auto context = colltune::client::WithDeadline(std::chrono::seconds(60));
    if (!Check(stub->UploadMeasurements(context.get(), r, &out), "upload")) {
      return false;
    }
  }
  return true;
}

void AddCell(colltune::v1::ReportJobRequest* r, Collective c,
             const std::string& algorithm, int log2, int64_t calls, int64_t timed,
             int64_t explored, double seconds, int comm_size) {
  namespace h = colltune::histogram;
  colltune::v1::JobTiming* t = r->add_timings();
  t->set_collective(std::string(colltune::InfoOf(c).name));
  t->set_algorithm(algorithm);
  // The size 2^log2 lies in bucket log2 + 1: [2^log2, 2^(log2+1) - 1].
  t->set_min_bytes(int64_t{1} << log2);
  t->set_max_bytes((int64_t{2} << log2) - 1);
  t->set_calls(calls);
  t->set_timed_calls(timed);
  t->set_explored_calls(explored);
  t->set_comm_size(comm_size);
  const int bin = h::BinOf(static_cast<uint64_t>(seconds * 1e9));
  t->set_first_bin(bin);
  t->add_bins(static_cast<uint64_t>(timed));
  const double mid_ns = (h::BinLow(bin) + h::BinLow(bin + 1)) / 2;
  t->set_total_seconds(static_cast<double>(timed) * mid_ns * 1e-9);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"seed_web: a realistic profile and job reports, for the web view"};
  std::string server;
  int jobs = 1000, samples = 20;
  app.add_option("--server", server, "colltuned's gRPC address")->required();
  app.add_option("--jobs", jobs, "job reports to send")->capture_default_str();
  app.add_option("--samples", samples, "samples per point and launch")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto stub = colltune::client::Connect(server);
  std::mt19937_64 rng(20261121);

  // The main context: 9 collectives x 20 sizes x every mock-up and the
  // natives above x 5 launches.
  colltune::v1::Context main_ctx;
  main_ctx.set_cluster("hpc-a");
  main_ctx.set_library("Open MPI");
  main_ctx.set_library_version("4.1.4");
  main_ctx.set_comm_size(16);
  main_ctx.set_nodes(2);
  main_ctx.set_ppn(8);
  std::vector<Collective> regular(std::begin(kRegular), std::end(kRegular));
  if (!Campaign(stub.get(), main_ctx, "nightly-2026-11-20", regular, kSizes, 5,
                samples, &rng, /*every_regime=*/true)) {
    return 1;
  }

  // A second, small context, and one whose names try to inject markup.
  colltune::v1::Context other = main_ctx;
  other.set_cluster("hpc-b");
  other.set_library("MPICH");
  other.set_library_version("4.0.2");
  other.set_comm_size(64);
  other.set_nodes(8);
  other.set_ppn(8);
  if (!Campaign(stub.get(), other, "weekly",
                {Collective::kAllreduce, Collective::kBcast, Collective::kGatherv}, 8, 3,
                10, &rng)) {
    return 1;
  }
  colltune::v1::Context hostile = main_ctx;
  hostile.set_cluster("<img src=x onerror=\"window.__xss=1\"><script>window.__xss=2</script>");
  hostile.set_library("Open MPI\"><b id=injected>bold</b>");
  hostile.set_comm_size(4);
  hostile.set_nodes(1);
  hostile.set_ppn(4);
  if (!Campaign(stub.get(), hostile, "<i>campaign</i>", {Collective::kGather}, 6, 3,
                10, &rng)) {
    return 1;
  }

  // Jobs of the main context, running what its table decides.
  colltune::v1::GetTableRequest tr;
  *tr.mutable_context() = main_ctx;
  colltune::v1::GetTableResponse table;
  {
    auto context = colltune::client::WithDeadline(std::chrono::seconds(30));
    if (!Check(stub->GetTable(context.get(), tr, &table), "get table")) return 1;
  }
  auto choice = [&](Collective c, int64_t bytes) -> std::string {
    for (const auto& section : table.table().sections()) {
      if (section.comm_size() != main_ctx.comm_size()) continue;
      for (const auto& rule : section.rules()) {
        if (rule.collective() == colltune::InfoOf(c).name &&
            bytes >= rule.min_bytes() &&
            (rule.max_bytes() < 0 || bytes <= rule.max_bytes())) {
          return rule.algorithm();
        }
      }
    }
    return "default";
  };
  int64_t version = 0;
  for (const auto& section : table.table().sections()) {
    if (section.comm_size() == main_ctx.comm_size()) version = section.version();
  }
  std::lognormal_distribution<double> job_noise(0.0, 0.04);
  std::uniform_int_distribution<int> pick_size(0, kSizes - 1);
  for (int j = 0; j < jobs; ++j) {
    colltune::v1::ReportJobRequest r;
    *r.mutable_context() = main_ctx;
    r.set_job_id("job-" + std::to_string(880000 + j));
    r.set_run_id("run-0");
    r.set_table_version(version);
    r.set_final(true);
    r.set_ranks(main_ctx.comm_size());
    for (size_t k = 0; k < 4; ++k) {
      const Collective c = kRegular[(j + 2 * k) % 9];
      const int log2 = pick_size(rng);
      const std::string algorithm = choice(c, int64_t{1} << log2);
      // Counts are summed over the job's ranks, as the shim reports them.
      const int64_t per_rank = 2000 + 100 * (j % 37);
      const int64_t calls = per_rank * main_ctx.comm_size();
      const int64_t timed = per_rank / 128 * main_ctx.comm_size();
      const double t = ModelSeconds(c, algorithm, log2) * job_noise(rng);
      if (algorithm == "default") {
        AddCell(&r, c, "default", log2, calls, timed, 0, t, main_ctx.comm_size());
      } else {
        const int64_t explored = 5 * main_ctx.comm_size();
        AddCell(&r, c, algorithm, log2, calls, timed, 0, t, main_ctx.comm_size());
        AddCell(&r, c, "default", log2, explored, explored,
                explored, ModelSeconds(c, "default", log2) * job_noise(rng),
                main_ctx.comm_size());
      }
    }
    // Every other job also calls non-blocking, persistent and neighbourhood
    // collectives, which the shim counts without tuning them.
    if (j % 2 == 0) {
      auto count = [&](const char* kind, const char* name, int64_t min, int64_t max,
                       int64_t calls) {
        colltune::v1::CountedCalls* c = r.add_counted();
        c->set_kind(kind);
        c->set_collective(name);
        c->set_min_bytes(min);
        c->set_max_bytes(max);
        c->set_calls(calls);
      };
      count("nonblocking", "iallreduce", 32, 63, 1000 + j);
      count("nonblocking", "iallreduce", 4096, 8191, 24);
      count("nonblocking", "ibarrier", 0, 0, 8);
      count("persistent", "allreduce_init", 64, 127, 4);
      count("neighborhood", "neighbor_alltoall", 8, 15, 16 * (j + 1));
    }
    colltune::v1::ReportJobResponse out;
    auto context = colltune::client::WithDeadline(std::chrono::seconds(30));
    if (!Check(stub->ReportJob(context.get(), r, &out), "report job")) return 1;
  }
  // A job of the hostile context whose ids try to inject markup too.
  {
    colltune::v1::ReportJobRequest r;
    *r.mutable_context() = hostile;
    r.set_job_id("<script>window.__xss=3</script>");
    r.set_run_id("<img src=x onerror=\"window.__xss=4\">");
    r.set_final(true);
    r.set_ranks(hostile.comm_size());
    AddCell(&r, Collective::kGather, "default", 4, 4000, 32, 0,
            ModelSeconds(Collective::kGather, "default", 4), hostile.comm_size());
    colltune::v1::ReportJobResponse out;
    auto context = colltune::client::WithDeadline(std::chrono::seconds(30));
    if (!Check(stub->ReportJob(context.get(), r, &out), "report hostile job")) return 1;
  }
  std::printf("seed_web: 3 contexts, %d job reports\n", jobs + 1);
  return 0;
}
