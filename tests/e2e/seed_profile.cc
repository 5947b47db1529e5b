// Test helper: uploads a synthetic, deterministic profile for the context of
// the job it runs in (library, version, ranks, nodes, ppn as the shim will
// detect them), so that end-to-end tests know which algorithm the daemon's
// table must pick.
//
//   mpirun -np 4 seed_profile --server ADDR [--campaign LABEL] [--cluster NAME] \
//       allreduce:allreduce_as_reduce_bcast:65536 ...
//
// For each collective named, `default` takes 10 us at every size of the grid
// (8, 1024, 65536, 1048576 bytes); the named algorithm takes 5 us at the named
// sizes and 20 us elsewhere. Naming `default` itself (scatter:default:1024)
// makes default take 30 us at that size instead: slower than at the larger
// sizes, a monotony violation. A collective with a datatype layout
// (bcast@tiled/8B:bcast_as_packed:8) seeds that layout's points. The profile
// is uploaded as five launches with a little launch-to-launch jitter, because
// the daemon's rank test needs several launches before it calls anything
// significant.
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/upload.h"
#include "common/catalog.h"
#include "proto/context.h"
#include "shim/runtime/context.h"

int main(int argc, char** argv) {
  PMPI_Init(&argc, &argv);
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  colltune::JobContext context;
  colltune::shim::DetectContext(MPI_COMM_WORLD, &context);
  int code = 0;
  if (rank == 0) {
    std::string server, campaign = "seed_profile";
    // collective -> algorithm -> sizes where it wins
    std::map<std::string, std::map<std::string, std::set<int64_t>>> wins;
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--server" && i + 1 < argc) {
        server = argv[++i];
        continue;
      }
      if (arg == "--campaign" && i + 1 < argc) {
        campaign = argv[++i];
        continue;
      }
      if (arg == "--cluster" && i + 1 < argc) {
        context.cluster = argv[++i];
        continue;
      }
      std::stringstream in(arg);
      std::string coll, alg, bytes;
      std::getline(in, coll, ':');
      std::getline(in, alg, ':');
      std::getline(in, bytes, ':');
      wins[coll][alg].insert(std::stoll(bytes));  // coll may be "bcast@tiled/8B"
    }
    colltune::v1::UploadMeasurementsRequest base;
    *base.mutable_context() = colltune::ContextToProto(context);
    base.set_campaign(campaign);
    constexpr int kLaunches = 5;
    size_t total = 0;
    int64_t version = 0;
    for (int launch = 0; launch < kLaunches && code == 0; ++launch) {
      // +-2% jitter per launch keeps per-launch medians distinct (no ties).
      const double jitter = 1.0 + 0.01 * (launch - 2);
      std::vector<colltune::v1::Measurement> points;
      for (const auto& [coll, algs] : wins) {
        for (int64_t bytes : {8, 1024, 65536, 1048576}) {
          auto add = [&](const std::string& alg, double seconds) {
            colltune::v1::Measurement m;
            const size_t at = coll.find('@');
            m.set_collective(coll.substr(0, at));
            if (at != std::string::npos) m.set_problem(coll.substr(at));
            m.set_algorithm(alg);
            m.set_msg_bytes(bytes);
            for (int r = 0; r < 5; ++r) m.add_samples(seconds * jitter * (1 + 0.001 * r));
            points.push_back(m);
          };
          auto slow = algs.find("default");
          add("default",
              slow != algs.end() && slow->second.count(bytes) ? 30e-6 : 10e-6);
          for (const auto& [alg, sizes] : algs) {
            if (alg != "default") add(alg, sizes.count(bytes) ? 5e-6 : 20e-6);
          }
        }
      }
      base.set_launch(launch);
      total += points.size();
      absl::Status s = colltune::bench::Upload({server, 5000}, base, points, &version);
      if (!s.ok()) {
        fprintf(stderr, "seed_profile: %s\n", std::string(s.message()).c_str());
        code = 1;
      }
    }
    if (code == 0) {
      printf("seeded %zu points in %d launches for %s %s on %d processes; table version %lld\n",
             total, kLaunches, context.library.c_str(),
             context.library_version.c_str(), context.comm_size,
             static_cast<long long>(version));
    }
  }
  PMPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  PMPI_Finalize();
  return code;
}
