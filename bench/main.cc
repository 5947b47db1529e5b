// colltune-bench: a tuning campaign's launch. Measures `default` and every
// algorithm of each collective over message sizes, prints a summary, and
// uploads the raw latencies to colltuned. Run it under mpirun:
//
//   mpirun -np 4 colltune-bench --server unix:/run/colltune/colltuned.sock
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/measure.h"
#include "bench/upload.h"
#include "bench/workload.h"
#include "common/catalog.h"
#include "common/stats.h"
#include "shim/coll/scratch.h"
#include "shim/runtime/context.h"

namespace colltune::bench {
namespace {

constexpr int kUsageError = 2;

struct Options {
  std::string server;
  std::vector<std::string> collectives = {
      "allgather", "allreduce", "alltoall", "bcast", "gather",
      "reduce", "reduce_scatter_block", "scan", "scatter"};
  std::vector<std::string> sizes = {"1",   "8",   "64",   "256",  "1K",
                                    "4K",  "16K", "32K",  "64K",  "128K",
                                    "256K", "512K", "1M"};
  std::string campaign;
  int launch = 0;
  std::string cluster;
  std::string reduce_type = "double";
  std::string mem_bytes = "64M";
  bool csv = false;
  bool quiet = false;
  int timeout_ms = 10000;
  MeasureOptions measure;
};

bool ParseSize(const std::string& text, int64_t* bytes) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (...) {
    return false;
  }
  std::string suffix = text.substr(used);
  int shift = 0;
  if (suffix == "K" || suffix == "k" || suffix == "KiB") shift = 10;
  else if (suffix == "M" || suffix == "m" || suffix == "MiB") shift = 20;
  else if (!suffix.empty() && suffix != "B") return false;
  if (v < 0 || v > (int64_t{256} << 20) >> shift) return false;
  *bytes = static_cast<int64_t>(v) << shift;
  return true;
}

std::string Hostname() {
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  return name;
}

struct Row {
  Collective collective;
  int64_t bytes;
  Algorithm algorithm;
  Summary summary;
};

void PrintRows(const std::vector<Row>& rows, bool csv) {
  std::map<std::pair<int, int64_t>, double> defaults;
  for (const Row& r : rows) {
    if (r.algorithm == Algorithm::kDefault) {
      defaults[{IndexOf(r.collective), r.bytes}] = r.summary.median;
    }
  }
  if (csv) {
    printf("collective,bytes,algorithm,nrep,median_s,min_s,mean_s,"
           "speedup_vs_default\n");
  } else {
    printf("%-22s %9s %-44s %5s %12s %12s %8s\n", "collective", "bytes",
           "algorithm", "nrep", "median_us", "min_us", "speedup");
  }
  for (const Row& r : rows) {
    auto d = defaults.find({IndexOf(r.collective), r.bytes});
    const double speedup = d != defaults.end() && r.summary.median > 0
                               ? d->second / r.summary.median
                               : 0;
    const std::string coll(InfoOf(r.collective).name);
    const std::string alg(InfoOf(r.algorithm).name);
    if (csv) {
      printf("%s,%lld,%s,%lld,%.9g,%.9g,%.9g,%.4f\n", coll.c_str(),
             static_cast<long long>(r.bytes), alg.c_str(),
             static_cast<long long>(r.summary.n), r.summary.median,
             r.summary.min, r.summary.mean, speedup);
    } else {
      printf("%-22s %9lld %-44s %5lld %12.2f %12.2f %7.2fx\n", coll.c_str(),
             static_cast<long long>(r.bytes), alg.c_str(),
             static_cast<long long>(r.summary.n), r.summary.median * 1e6,
             r.summary.min * 1e6, speedup);
    }
  }
}

int Run(const Options& o, MPI_Comm world, int rank) {
  std::vector<Collective> collectives;
  for (const std::string& name : o.collectives) {
    collectives.push_back(*ParseCollective(name));
  }
  std::vector<int64_t> sizes;
  for (const std::string& s : o.sizes) {
    int64_t b = 0;
    ParseSize(s, &b);
    sizes.push_back(b);
  }
  const std::map<std::string, ReduceType> reduce_types = {
      {"double", {MPI_DOUBLE, MPI_SUM}},
      {"int", {MPI_INT, MPI_SUM}},
      {"byte", {MPI_UNSIGNED_CHAR, MPI_BOR}}};
  const ReduceType reduce = reduce_types.at(o.reduce_type);

  shim::ScratchPool scratch;
  shim::CollEnv env;
  env.comm = world;
  env.rank = rank;
  PMPI_Comm_size(world, &env.size);
  int64_t budget = 0;
  ParseSize(o.mem_bytes, &budget);
  env.mem_budget = static_cast<uint64_t>(budget);
  env.scratch = &scratch;

  shim::JobContext context;
  if (shim::DetectContext(world, &context) != MPI_SUCCESS) return 1;

  // The work list, identical on every rank.
  struct Item {
    Collective c;
    int64_t requested;
  };
  std::vector<Item> items;
  for (Collective c : collectives) {
    for (int64_t s : sizes) items.push_back({c, s});
  }
  std::vector<Row> rows;
  std::vector<v1::Measurement> pending;
  v1::UploadMeasurementsRequest base;
  if (rank == 0) {
    v1::Context* ctx = base.mutable_context();
    ctx->set_cluster(o.cluster);
    ctx->set_library(context.library);
    ctx->set_library_version(context.library_version);
    ctx->set_comm_size(context.comm_size);
    ctx->set_nodes(context.nodes);
    ctx->set_ppn(context.ppn);
    base.set_campaign(o.campaign.empty()
                          ? "bench-" + Hostname() + "-" +
                                std::to_string(static_cast<long long>(time(nullptr)))
                          : o.campaign);
    base.set_launch(o.launch);
    base.set_host(Hostname());
  }
  int exit_code = 0;
  std::set<std::pair<int, int64_t>> done;  // sizes that round to the same key
  const double start = PMPI_Wtime();
  for (size_t i = 0; i < items.size(); ++i) {
    auto w = Workload::Make(items[i].c, items[i].requested, reduce, env);
    if (!done.insert({IndexOf(w->collective()), w->bytes()}).second) continue;
    std::vector<Algorithm> algorithms;
    for (int a = 0; a < kNumAlgorithms; ++a) {
      const Algorithm alg = static_cast<Algorithm>(a);
      if (Implements(alg, w->collective()) && w->Eligible(alg)) {
        algorithms.push_back(alg);
      }
    }
    std::vector<int> rc;
    std::vector<std::vector<double>> samples =
        Measure(*w, algorithms, world, o.measure, &rc);
    if (rank != 0) continue;
    const std::string coll(InfoOf(w->collective()).name);
    for (size_t a = 0; a < algorithms.size(); ++a) {
      const std::string name(InfoOf(algorithms[a]).name);
      if (rc[a] != MPI_SUCCESS) {
        fprintf(stderr, "colltune-bench: %s %lld B %s failed with MPI error %d\n",
                coll.c_str(), static_cast<long long>(w->bytes()), name.c_str(),
                rc[a]);
        exit_code = 1;
        continue;
      }
      Summary s = Summarize(samples[a]);
      rows.push_back({w->collective(), w->bytes(), algorithms[a], s});
      v1::Measurement m;
      m.set_collective(coll);
      m.set_algorithm(name);
      m.set_msg_bytes(w->bytes());
      for (double v : samples[a]) m.add_samples(v);
      pending.push_back(std::move(m));
      if (!o.quiet) {
        const double elapsed = PMPI_Wtime() - start;
        const double eta = elapsed / (i + 1) * (items.size() - i - 1);
        fprintf(stderr,
                "colltune-bench: [%zu/%zu] %s %lld B %s: median %.2f us "
                "(%lld reps), ETA %.0f s\n",
                i + 1, items.size(), coll.c_str(),
                static_cast<long long>(w->bytes()), name.c_str(),
                s.median * 1e6, static_cast<long long>(s.n), eta);
      }
    }
  }
  if (rank == 0) {
    PrintRows(rows, o.csv);
    if (!o.server.empty()) {
      int64_t version = 0;
      absl::Status s = Upload({o.server, o.timeout_ms}, base, pending, &version);
      if (!s.ok()) {
        fprintf(stderr, "colltune-bench: upload failed: %s\n",
                std::string(s.message()).c_str());
        exit_code = 1;
      } else {
        fprintf(stderr,
                "colltune-bench: uploaded %zu points to %s (campaign '%s' "
                "launch %d); table version now %lld\n",
                pending.size(), o.server.c_str(), base.campaign().c_str(),
                o.launch, static_cast<long long>(version));
      }
    }
  }
  return exit_code;
}

}  // namespace
}  // namespace colltune::bench

int main(int argc, char** argv) {
  using colltune::bench::Options;
  PMPI_Init(&argc, &argv);
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);

  Options o;
  CLI::App app{"colltune-bench: measure collectives and their mock-ups"};
  app.add_option("--server", o.server,
                 "colltuned address to upload to (none: print only)");
  app.add_option("--collectives", o.collectives, "Collectives to measure")
      ->delimiter(',')
      ->check([](const std::string& s) {
        return colltune::ParseCollective(s) ? std::string()
                                            : "unknown collective '" + s + "'";
      });
  app.add_option("--sizes", o.sizes,
                 "Message sizes in bytes (suffix K or M allowed)")
      ->delimiter(',')
      ->check([](const std::string& s) {
        int64_t b = 0;
        return colltune::bench::ParseSize(s, &b)
                   ? std::string()
                   : "'" + s + "' is not a size in 0..256M";
      });
  app.add_option("--nrep", o.measure.nrep, "Repetitions per point")
      ->check(CLI::Range(3, 1000000))
      ->capture_default_str();
  app.add_option("--warmup", o.measure.warmup, "Untimed repetitions per point")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--max-seconds-per-point", o.measure.max_seconds_per_point,
                 "Fewer repetitions where a point would take longer")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  app.add_option("--campaign", o.campaign,
                 "Campaign label shared by its launches (default: new)");
  app.add_option("--launch", o.launch, "Index of this launch in the campaign")
      ->check(CLI::Range(0, 999))
      ->capture_default_str();
  app.add_option("--cluster", o.cluster, "Cluster name (default: the daemon's)");
  app.add_option("--reduce-type", o.reduce_type,
                 "Element type of reductions: double (MPI_SUM), int (MPI_SUM) "
                 "or byte (MPI_BOR)")
      ->check(CLI::IsMember({"double", "int", "byte"}))
      ->capture_default_str();
  app.add_option("--mem-bytes", o.mem_bytes,
                 "Scratch budget of mock-ups, as COLLTUNE_MEM_BYTES")
      ->capture_default_str();
  app.add_option("--timeout-ms", o.timeout_ms, "Deadline of each upload")
      ->check(CLI::Range(1, 600000))
      ->capture_default_str();
  app.add_flag("--csv", o.csv, "Print medians as CSV");
  app.add_flag("--quiet", o.quiet, "No progress on stderr");
  try {
    app.parse(argc, argv);
    int64_t b = 0;
    if (!colltune::bench::ParseSize(o.mem_bytes, &b)) {
      throw CLI::ValidationError("--mem-bytes", "not a size");
    }
  } catch (const CLI::ParseError& e) {
    int code = 0;
    if (rank == 0) {
      code = app.exit(e);
    } else {
      code = e.get_exit_code();
    }
    PMPI_Finalize();
    return code == 0 ? 0 : colltune::bench::kUsageError;
  }
  MPI_Comm world;
  PMPI_Comm_dup(MPI_COMM_WORLD, &world);
  int code = colltune::bench::Run(o, world, rank);
  PMPI_Comm_free(&world);
  PMPI_Finalize();
  return code;
}
