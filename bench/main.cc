// colltune-bench: a tuning campaign's launch, or an evaluation of a decision
// table. Run it under mpirun:
//
//   mpirun -np 4 colltune-bench --server unix:/run/colltune/colltuned.sock
//       --campaign spring --launch 0       (one command line)
//   mpirun -np 4 colltune-bench --evaluate --server unix:/run/colltune/colltuned.sock
//   mpirun -np 8 colltune-bench --irregular gatherv     (seed 000's tables)
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "bench/options.h"
#include "common/command_line.h"
#include "common/heap.h"

int main(int argc, char** argv) {
  using colltune::bench::Options;
  {
    // Open MPI forces its own algorithms only with dynamic rules on at init.
    colltune::shim::NativeInitScope natives(/*enabled=*/true);
    PMPI_Init(&argc, &argv);
  }
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);

  Options o;
  CLI::App app{"colltune-bench: measure collectives and their mock-ups, or "
               "evaluate a decision table"};
  auto size_check = [](const std::string& s) {
    int64_t b = 0;
    return colltune::bench::ParseSize(s, &b) ? std::string()
                                             : "'" + s + "' is not a size in 0..256M";
  };
  app.add_option("--server", o.server,
                 "colltuned address to upload to (none: print only)");
  app.add_option("--collectives", o.collectives, "Collectives to measure")
      ->delimiter(',')
      ->check([](const std::string& s) {
        return colltune::ParseCollective(s) ? std::string()
                                            : "unknown collective '" + s + "'";
      });
  app.add_option("--sizes", o.sizes, "Message sizes in bytes (suffix K or M allowed)")
      ->delimiter(',')
      ->check(size_check);
  app.add_option("--irregular-sizes", o.irregular_sizes,
                 "gatherv, scatterv, alltoallv, alltoallw: average block sizes in "
                 "bytes, each measured with seed 000's six block-size distributions")
      ->delimiter(',')
      ->check(size_check);
  app.add_option("--total-sizes", o.total_sizes,
                 "allgatherv, reduce_scatter: total sizes in bytes (their size key), "
                 "each measured with the six distributions scaled to it")
      ->delimiter(',')
      ->check(size_check);
  app.add_option("--datatypes", o.datatypes,
                 "Seed 003's grid: also measure bcast, allgather, gather, scatter, "
                 "alltoall and the v-variants (equal blocks) with their data described by these "
                 "derived datatypes (layout:ints-per-block, e.g. tiled:2,struct:8; 'grid' "
                 "for the seed's grid: tiled 2-1000, indexed, nested, struct), with the "
                 "datatype forms (<collective>_as_packed, _as_contiguous, _as_normalized) "
                 "next to every other candidate")
      ->delimiter(',')
      ->check([](const std::string& s) {
        return s == "grid" || colltune::bench::ParseDatatypeSpec(s)
                   ? std::string()
                   : "'" + s + "' is not layout:block (tiled, indexed, nested or struct; "
                               "a block of 1..100000) nor 'grid'";
      });
  app.add_option("--datatype-sizes", o.datatype_sizes,
                 "The data's bytes at each point of --datatypes")
      ->delimiter(',')
      ->check(size_check)
      ->capture_default_str();
  app.add_option("--nrep", o.nrep,
                 "Repetitions per point: 'auto' (NREP estimation) or a count")
      ->check([](const std::string& s) {
        if (s == "auto") return std::string();
        try {
          size_t used = 0;
          int v = std::stoi(s, &used);
          if (used == s.size() && v >= 3 && v <= 1000000) return std::string();
        } catch (...) {
        }
        return "'" + s + "' is neither 'auto' nor a count in 3..1000000";
      })
      ->capture_default_str();
  app.add_option("--nrep-rse", o.nrep_options.rse,
                 "NREP: relative standard error that ends the 1-byte runs")
      ->check(CLI::Range(0.0001, 0.5))
      ->capture_default_str();
  app.add_option("--nrep-b1", o.nrep_options.b1, "NREP: first pilot batch")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  app.add_option("--nrep-b2", o.nrep_options.b2, "NREP: second pilot batch")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--nrep-pilot-rse", o.nrep_options.pilot_rse,
                 "NREP: RSE above which the second batch runs")
      ->check(CLI::Range(0.0001, 1.0))
      ->capture_default_str();
  CLI::Option* floor_option =
      app.add_option("--nrep-floor", o.nrep_options.floor,
                     "NREP: at least K repetitions (evaluation: 20)")
          ->check(CLI::Range(3, 1000000))
          ->capture_default_str();
  app.add_option("--nrep-max", o.nrep_options.max_nrep, "NREP: at most this many")
      ->check(CLI::Range(3, 1000000))
      ->capture_default_str();
  app.add_option("--nrep-max-seconds", o.nrep_options.max_seconds_1b,
                 "NREP: the 1-byte runs stop after this long")
      ->check(CLI::Range(0.01, 3600.0))
      ->capture_default_str();
  app.add_option("--early-stop", o.early_stop,
                 "Campaigns: stop an algorithm once 3/4 of its repetitions are this "
                 "factor slower than 3/4 of the best's (0: never)")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--early-stop-default", o.early_stop_default,
                 "Campaigns: also stop an algorithm once 3/4 of its repetitions are this "
                 "factor slower than 3/4 of default's (0: never)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  app.add_option("--warmup", o.warmup, "Untimed repetitions of each algorithm")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--regimes", o.regimes,
                 "Regimes to time each point in: sync (a barrier before each call), "
                 "loop (back to back), imbalance (after uneven work per rank); "
                 "sync is always measured")
      ->delimiter(',')
      ->check(CLI::IsMember({"sync", "loop", "imbalance"}))
      ->capture_default_str();
  app.add_option("--regime-loop-us", o.regime.loop_us,
                 "Loop and imbalance regimes: a repetition is a loop of calls that "
                 "lasts about this long at default's time per call back to back")
      ->check(CLI::Range(0.0, 1e7))
      ->capture_default_str();
  app.add_option("--regime-max-calls", o.regime.max_calls,
                 "Loop and imbalance regimes: at most this many calls per repetition")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--regime-max-reps", o.regime.max_reps,
                 "At most this many repetitions per algorithm in the loop and "
                 "imbalance regimes")
      ->check(CLI::Range(2, 100000))
      ->capture_default_str();
  app.add_option("--regime-prune", o.regime.prune,
                 "Campaigns: time in the other regimes only candidates whose "
                 "synchronized median is within this factor of default's")
      ->check(CLI::Range(1.0, 100.0))
      ->capture_default_str();
  app.add_option("--regime-candidates", o.regime.max_candidates,
                 "Campaigns: at most this many candidates besides default in the "
                 "other regimes")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--regime-specialists", o.regime.specialists,
                 "Campaigns: per point and regime, screen the candidates the prune left "
                 "out and time this many that are fastest there (for regime switches; "
                 "0: none)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--sync", o.sync,
                 "barrier (dissemination barrier before each repetition) or "
                 "window (common start times on synchronized clocks)")
      ->check(CLI::IsMember({"barrier", "window"}))
      ->capture_default_str();
  app.add_option("--window-us", o.window_us,
                 "Window length in microseconds (0: twice the slowest pilot)")
      ->check(CLI::Range(0.0, 1e7));
  app.add_option("--campaign", o.campaign,
                 "Campaign label shared by its launches (default: new)");
  app.add_option("--launch", o.launch,
                 "Index of this launch in the campaign or the evaluation (it seeds the "
                 "measurement order)")
      ->check(CLI::Range(0, 999))
      ->capture_default_str();
  app.add_option("--root", o.root,
                 "Root of the rooted collectives (default: 0 in launch 0, then the last "
                 "rank, the one before, ...: a table holds for every root)")
      ->check(CLI::Range(0, 1 << 20));
  app.add_flag("!--no-resume", o.resume,
               "Measure again what the daemon already stored for this launch");
  app.add_option("--cluster", o.cluster, "Cluster name (default: the daemon's)");
  int expect_processes = 0;
  app.add_option("--expect-processes", expect_processes,
                 "Fail unless the job has this many processes (a launcher of "
                 "another MPI library, or srun with the wrong --mpi, starts "
                 "singletons)")
      ->check(CLI::Range(1, 1 << 24));
  app.add_option("--reduce-type", o.reduce_type,
                 "Element type of reductions: double (MPI_SUM), int (MPI_SUM) "
                 "or byte (MPI_BOR)")
      ->check(CLI::IsMember({"double", "int", "byte"}))
      ->capture_default_str();
  app.add_option("--mem-bytes", o.mem_bytes,
                 "Scratch budget of mock-ups, as COLLTUNE_MEM_BYTES")
      ->check(size_check)
      ->capture_default_str();
  app.add_option("--timeout-ms", o.timeout_ms, "Deadline of each daemon request")
      ->check(CLI::Range(1, 600000))
      ->capture_default_str();
  app.add_flag("--evaluate", o.evaluate,
               "Evaluate the decision table (daemon's, or --table) instead of "
               "measuring a campaign");
  app.add_flag("--validate", o.validate,
               "A held-out validation's launch: time default against the table's choice "
               "(the daemon's, or --table) where the table changes the algorithm, and "
               "upload them as held out: they can only take a choice back")
      ->excludes(app.get_option("--evaluate"));
  app.add_option("--table", o.table, "A table file to evaluate or validate");
  app.add_option("--evaluate-points", o.evaluate_points,
                 "--evaluate: also write every point's medians to this file (read by "
                 "colltune evaluate --launches)");
  app.add_option("--margin", o.margin, "Evaluation: margin of 'faster'")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  app.add_option("--alpha", o.alpha, "Evaluation: significance level")
      ->check(CLI::Range(0.0001, 0.5))
      ->capture_default_str();
  app.add_option("--irregular", o.irregular,
                 "Seed 000's experiment for gatherv or scatterv: the paper's "
                 "tables, with colltune's TUW tree")
      ->check(CLI::IsMember({"gatherv", "scatterv"}))
      ->excludes(app.get_option("--validate"));
  app.add_option("--irregular-reps", o.irregular_reps,
                 "Measured repetitions per cell of --irregular")
      ->check(CLI::Range(1, 100000));
  app.add_option("--irregular-warmup", o.irregular_warmup,
                 "Untimed repetitions per cell of --irregular")
      ->check(CLI::Range(0, 100000));
  app.add_flag("!--no-native", o.natives,
               "Leave the library's own algorithms (native:<name>) out");
  app.add_option("--launched-with", o.launched_with,
                 "This launch enabled a whole-job choice of the library (han: Open MPI's "
                 "coll/han, --mca coll_han_priority 100): time the library's default only, "
                 "for the collectives it covers, and store it as native:<name>")
      ->check(CLI::IsMember({"han"}))
      ->excludes(app.get_option("--evaluate"))
      ->excludes(app.get_option("--validate"))
      ->excludes(app.get_option("--irregular"));
  app.add_flag("--list-algorithms", o.list_algorithms,
               "Print the algorithms runnable here, the library's own as it lists them");
  app.add_flag("--csv", o.csv, "Print medians as CSV");
  app.add_flag("--quiet", o.quiet, "No progress on stderr");
  if (std::optional<int> code = colltune::ParseCommandLine(app, argc, argv, rank != 0)) {
    PMPI_Finalize();
    return *code;
  }
  int world_size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (expect_processes > 0 && world_size != expect_processes) {
    if (rank == 0) {
      fprintf(stderr,
              "colltune-bench: this job has %d process%s in MPI_COMM_WORLD, not the "
              "%d expected: the launcher did not connect them (mpirun of another MPI "
              "library? srun --mpi=pmix runs MPICH processes as singletons: use "
              "--mpi=pmi2)\n",
              world_size, world_size == 1 ? "" : "es", expect_processes);
    }
    PMPI_Finalize();
    return 3;
  }
  // A whole-job launch times the library's default alone: no shadows.
  if (!o.launched_with.empty()) o.natives = false;
  // An evaluation judges single points from one job: a higher floor keeps
  // its large-message verdicts from resting on five repetitions.
  if (o.evaluate && floor_option->count() == 0) o.nrep_options.floor = 20;
  o.regime.regimes = colltune::kSyncOnly;
  for (const std::string& r : o.regimes) {
    o.regime.regimes |= colltune::Bit(*colltune::ParseRegime(r));
  }
  // A fixed count (tests, quick looks) asks for few repetitions everywhere.
  if (o.nrep != "auto") o.regime.min_reps = 2;
  MPI_Comm world;
  PMPI_Comm_dup(MPI_COMM_WORLD, &world);
  colltune::bench::Bench bench;
  bench.heap = colltune::FixHeap();
  int code = 1;
  if (colltune::bench::SetUp(o, world, &bench)) {
    code = o.list_algorithms         ? colltune::bench::ListAlgorithms(bench)
           : !o.irregular.empty() ? colltune::bench::RunIrregular(o, bench)
           : o.evaluate             ? colltune::bench::RunEvaluate(o, bench)
                                    : colltune::bench::RunCampaign(o, bench);
  }
  if (bench.p2p != MPI_COMM_NULL) PMPI_Comm_free(&bench.p2p);
  bench.nodes.Free();
  if (bench.native_comms) bench.native_comms->Free();
  bench.natives.reset();  // MPI_T, before MPI goes
  bench.sync.reset();
  PMPI_Comm_free(&world);
  PMPI_Finalize();
  return code;
}
