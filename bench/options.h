// colltune-bench's settings and the environment both of its modes share.
#ifndef COLLTUNE_BENCH_OPTIONS_H_
#define COLLTUNE_BENCH_OPTIONS_H_

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/datatype_grid.h"
#include "bench/measure.h"
#include "bench/nrep.h"
#include "bench/regimes.h"
#include "bench/sync.h"
#include "bench/workload.h"
#include "common/catalog.h"
#include "shim/coll/env.h"
#include "shim/coll/scratch.h"
#include "shim/native/native.h"
#include "shim/runtime/context.h"

namespace colltune::bench {

struct Options {
  std::string server;
  std::vector<std::string> collectives = {
      "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv",
      "alltoallw", "barrier", "bcast", "exscan", "gather", "gatherv", "reduce",
      "reduce_scatter", "reduce_scatter_block", "scan", "scatter", "scatterv"};
  std::vector<std::string> sizes = {"1",    "8",    "64",   "256",  "1K",
                                    "4K",   "16K",  "32K",  "64K",  "128K",
                                    "256K", "512K", "1M"};
  // Irregular collectives keyed on no size (gatherv, scatterv, alltoallv,
  // alltoallw): average block sizes, each measured with seed 000's six
  // block-size distributions (common/problems.h).
  std::vector<std::string> irregular_sizes = {"8", "256", "8K"};
  // Irregular collectives keyed on the total size (allgatherv,
  // reduce_scatter): total sizes, each measured with the six distributions
  // scaled to it; decisions are per total size, so these span the axis.
  std::vector<std::string> total_sizes = {"64", "4K", "64K", "1M"};
  // Seed 003's datatype grid (bench/datatype_grid.h): the derived datatypes
  // ("tiled:2", or "grid" for the seed's grid) the collectives with a packed
  // form are also measured with, at datatype_sizes; none by default.
  std::vector<std::string> datatypes;
  std::vector<std::string> datatype_sizes = {"4K", "64K", "1M"};
  std::string campaign;
  int launch = 0;
  // The root of the rooted collectives; -1: RootOfLaunch(launch, size).
  int root = -1;
  std::string cluster;
  std::string reduce_type = "double";
  std::string mem_bytes = "64M";
  std::string nrep = "auto";  // or a fixed count
  int warmup = 2;
  NrepOptions nrep_options;
  // Campaigns stop measuring an algorithm early once it clearly cannot win
  // at a point (measure.h, EarlyStop); 0 measures every repetition.
  double early_stop = 1.3;
  // ... and once it clearly cannot be level with default (measure.h).
  double early_stop_default = 1.10;
  // The regimes besides sync (common/regime.h) and how they are timed.
  std::vector<std::string> regimes = {"sync", "loop", "imbalance"};
  RegimeOptions regime;
  std::string sync = "barrier";  // or "window"
  double window_us = 0;          // 0: adaptive
  bool resume = true;
  bool csv = false;
  bool quiet = false;
  int timeout_ms = 10000;
  // A held-out validation's launch (colltune campaign --validate): time
  // default and the table's choice (the daemon's, or --table) at the points
  // where the table changes the algorithm, and upload them as held out.
  bool validate = false;
  // Evaluation mode.
  bool evaluate = false;
  std::string table;  // a table file instead of asking the daemon
  // Where rank 0 writes every point's medians (common/evaluation.h), for
  // `colltune evaluate --launches N`; empty: nowhere.
  std::string evaluate_points;
  double margin = 0.10;
  double alpha = 0.05;
  // Seed 000's experiment (irregular.cc): "gatherv" or "scatterv".
  std::string irregular;
  // The library's own algorithms (native:<name>) are candidates too.
  bool natives = true;
  // A whole-job choice this launch was started with ("han": Open MPI's
  // coll/han, --mca coll_han_priority 100): the library's default is then
  // that choice, timed alone and stored as native:<name>; "" for none.
  std::string launched_with;
  bool list_algorithms = false;
  int irregular_reps = 75;
  int irregular_warmup = 10;
};

// Parses "65536", "64K", "1M" into bytes (at most 256 MiB).
bool ParseSize(const std::string& text, int64_t* bytes);

// What a run works with, set up once, identically on every rank.
struct Bench {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  int root = 0;  // of the rooted collectives in this launch (RootOfLaunch)
  shim::ScratchPool scratch;
  shim::CollEnv env;
  MPI_Comm p2p = MPI_COMM_NULL;  // env.p2p: for point-to-point algorithms
  shim::NodeLayout nodes;        // env.nodes: for hierarchical algorithms
  // The library's own algorithms (null with --no-native or when the library
  // offers none) and the benchmark communicator's shadows (one per native
  // algorithm measured, under Open MPI).
  std::unique_ptr<shim::NativeAlgorithms> natives;
  std::unique_ptr<shim::NativeComms> native_comms;
  JobContext context;
  ReduceType reduce{};
  std::vector<Collective> collectives;
  std::vector<int64_t> sizes;
  std::vector<int64_t> irregular_sizes;
  std::vector<int64_t> total_sizes;
  std::vector<DatatypeSpec> datatypes;
  std::vector<int64_t> datatype_sizes;
  std::unique_ptr<Synchronizer> sync;
  int fixed_nrep = 0;  // 0: estimate (NREP)
  std::string heap;    // the heap's state (common/heap.h)
  // --launched-with: per collective, the whole-job algorithm the library's
  // default stands for in this launch (only those collectives are measured).
  std::array<std::optional<Algorithm>, kNumCollectives> launched_as{};

  // The name `a` is timed and stored under for `c`.
  Algorithm StoredAs(Collective c, Algorithm a) const {
    const std::optional<Algorithm>& as = launched_as[IndexOf(c)];
    return a == Algorithm::kDefault && as ? *as : a;
  }
  bool launched_with() const {
    for (const std::optional<Algorithm>& a : launched_as) {
      if (a) return true;
    }
    return false;
  }
};

// The root a launch's rooted collectives take unless --root says: 0, then
// size-1, size-2, ... A choice can depend on where the root is (with two
// processes to a core, scatter_as_tuw_tree ran 1.10x default's speed at
// root 0 and 0.92x at root 3 of 4: docs/results-2026-11-28.md), programs
// use any root, and a table holds for all of them; so the launches of a
// campaign or an evaluation each time another root, and the engine's
// per-launch tests keep default where a choice loses at one of them.
inline int RootOfLaunch(int launch, int size) {
  return size <= 1 ? 0 : (size - launch % size) % size;
}

// Collective over `comm`; false on an MPI error.
bool SetUp(const Options& o, MPI_Comm comm, Bench* b);

// The algorithms of `w` this benchmark can run (default first), the same on
// every rank.
std::vector<Algorithm> Runnable(const Workload& w);

// Of `runnable`, what a campaign times at a point: at the datatype grid's
// points all of it (the datatype forms for the layout's rules, the others to
// check that a plain rule does not slow that layout down), elsewhere all but
// the datatype forms (IsDatatypeForm: on contiguous data they run as default).
std::vector<Algorithm> ForPoint(std::vector<Algorithm> runnable, bool datatype_grid);

// Of `runnable`, what a layout rule chooses between: default and the
// datatype forms.
std::vector<Algorithm> ForLayoutRules(const std::vector<Algorithm>& runnable);

// The seed of a point's shuffled measurement order: fixed by what is
// measured, so runs are reproducible and every rank agrees.
inline uint64_t PointSeed(Collective c, int64_t bytes, int launch) {
  return (static_cast<uint64_t>(IndexOf(c)) << 48) ^
         (static_cast<uint64_t>(bytes) << 8) ^ static_cast<uint64_t>(launch);
}

// Prints the algorithms of every collective this benchmark can run here,
// the library's own ones as the library lists them (rank 0).
int ListAlgorithms(const Bench& b);

int RunCampaign(const Options& o, Bench& b);
int RunEvaluate(const Options& o, Bench& b);
int RunIrregular(const Options& o, Bench& b);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_OPTIONS_H_
