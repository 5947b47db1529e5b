// colltune-bench --irregular gatherv|scatterv: seed 000's experiment
// (Tables 1-5), on this machine's MPI library.
//
// For each problem type (problems.h) and average block b in {1, 10, 100,
// 1000, 10000} MPI_INTs, with root floor(p/2): the regular collective on
// blocks padded to the largest (m' = p * max m_i in all), guideline 2's
// composition (MPI_Allreduce of one int, then that regular collective), the
// library's irregular collective, and colltune's TUW tree (the shim's own
// code, shim/coll/tuw_tree.h). Each is run 10 times untimed, then 75 times,
// each time after MPI_Barrier as in the paper; a repetition's time is the
// slowest process's. The paper's average and minimum are printed, and the
// guideline violations marked: guideline 1 (the regular collective slower
// than the irregular one where blocks are all the same) in the regular
// column, guideline 2 (slower than padding) in the irregular columns. A
// violation needs both the average and the minimum to be slower, so one
// outlier does not make one. TUW's results are checked against the
// library's on every row.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "bench/options.h"
#include "common/problems.h"
#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::bench {
namespace {

struct Stat {
  double avg_us = 0, min_us = 0;
  bool SlowerThan(const Stat& o) const { return avg_us > o.avg_us && min_us > o.min_us; }
};

Stat Measure(MPI_Comm comm, int warmup, int reps, const std::function<int()>& op,
             int* rc) {
  for (int i = 0; i < warmup; ++i) {
    PMPI_Barrier(comm);
    *rc |= op();
  }
  std::vector<double> local(reps), slowest(reps);
  for (int i = 0; i < reps; ++i) {
    PMPI_Barrier(comm);
    const double t0 = PMPI_Wtime();
    *rc |= op();
    local[i] = PMPI_Wtime() - t0;
  }
  PMPI_Allreduce(local.data(), slowest.data(), reps, MPI_DOUBLE, MPI_MAX, comm);
  Stat s;
  s.min_us = *std::min_element(slowest.begin(), slowest.end()) * 1e6;
  s.avg_us = std::accumulate(slowest.begin(), slowest.end(), 0.0) / reps * 1e6;
  return s;
}

std::string Cell(const Stat& s, bool violated) {
  char buf[64];
  snprintf(buf, sizeof buf, "%9.2f %9.2f %-2s", s.avg_us, s.min_us, violated ? "!" : "");
  return buf;
}

}  // namespace

int RunIrregular(const Options& o, Bench& b) {
  const bool gather = o.irregular == "gatherv";
  const int p = b.size, root = p / 2, me = b.rank;
  const MPI_Comm comm = b.comm;
  const char* regular = gather ? "MPI_Gather" : "MPI_Scatter";
  const char* native = gather ? "MPI_Gatherv" : "MPI_Scatterv";
  const char* tuw = gather ? "TUW_Gatherv" : "TUW_Scatterv";
  if (me == 0) {
    printf("== %s, seed 000's experiment: %s %s, p = %d, root %d, blocks of MPI_INT\n",
           native, b.context.library.c_str(), b.context.library_version.c_str(), p, root);
    printf("   %d repetitions after %d warm-ups, each after MPI_Barrier; time of the "
           "slowest process in us (avg, min)\n",
           o.irregular_reps, o.irregular_warmup);
    printf("   '!' after %s: guideline 1 violated (%s(m) slower than %s(m), same-size "
           "blocks); after %s or %s: guideline 2 violated (slower than MPI_Allreduce + "
           "%s(m'))\n",
           regular, regular, native, native, tuw, regular);
    printf("%-11s %6s %9s %9s | %-22s | %-22s | %-22s | %-22s | %s\n", "problem", "b", "m",
           "m'", regular, "guideline 2", native, tuw, "native/TUW avg min");
  }
  int small_rows = 0, tuw_fast_min = 0, tuw_fast_avg = 0, rows = 0;
  int g2_native_kept = 0, g2_tuw_kept = 0, g2_tuw_kept_where_native_failed = 0,
      g2_native_failed = 0;
  int failures = 0;
  for (Problem problem : kAllProblems) {
    for (int64_t block : {1, 10, 100, 1000, 10000}) {
      const std::vector<int> counts =
          BlockCounts(problem, p, block, 1000003ULL * static_cast<uint64_t>(block) + 17);
      std::vector<int> displs(p);
      int64_t m = 0;
      for (int i = 0; i < p; ++i) {
        displs[i] = static_cast<int>(m);
        m += counts[i];
      }
      const int largest = *std::max_element(counts.begin(), counts.end());
      const int64_t padded_total = static_cast<int64_t>(largest) * p;
      // Buffers: the root's holds m' elements (enough for m too); every
      // process's own block holds `largest` (enough for padding).
      std::vector<int> own(std::max(largest, 1)), all(std::max<int64_t>(padded_total, 1));
      std::vector<int> check(std::max<int64_t>(m, 1));
      for (int i = 0; i < counts[me]; ++i) own[i] = me * 100003 + i;
      if (me == root) {
        for (int64_t i = 0; i < m; ++i) all[i] = static_cast<int>(i * 7 + 3);
      }
      int rc = 0;
      int one = counts[me], max_count = 0;
      std::function<int()> regular_op, padding_op, native_op, tuw_op;
      shim::Outcome outcome = shim::Outcome::kDefault;
      if (gather) {
        const shim::GathervCall call{own.data(), counts[me], MPI_INT, all.data(),
                                     counts.data(), displs.data(), MPI_INT, root};
        regular_op = [&] {
          return PMPI_Gather(own.data(), largest, MPI_INT, all.data(), largest, MPI_INT,
                             root, comm);
        };
        padding_op = [&] {
          int r = PMPI_Allreduce(&one, &max_count, 1, MPI_INT, MPI_MAX, comm);
          return r | PMPI_Gather(own.data(), max_count, MPI_INT, all.data(), max_count,
                                 MPI_INT, root, comm);
        };
        native_op = [&, call] { return call.Native(comm); };
        tuw_op = [&, call] {
          return shim::Execute(Algorithm::kGathervAsTuwTree, call, b.env, &outcome);
        };
      } else {
        const shim::ScattervCall call{all.data(), counts.data(), displs.data(), MPI_INT,
                                      own.data(), counts[me],    MPI_INT,       root};
        regular_op = [&] {
          return PMPI_Scatter(all.data(), largest, MPI_INT, own.data(), largest, MPI_INT,
                              root, comm);
        };
        padding_op = [&] {
          int r = PMPI_Allreduce(&one, &max_count, 1, MPI_INT, MPI_MAX, comm);
          return r | PMPI_Scatter(all.data(), max_count, MPI_INT, own.data(), max_count,
                                  MPI_INT, root, comm);
        };
        native_op = [&, call] { return call.Native(comm); };
        tuw_op = [&, call] {
          return shim::Execute(Algorithm::kScattervAsTuwTree, call, b.env, &outcome);
        };
      }
      const int w = o.irregular_warmup, n = o.irregular_reps;
      const Stat s_regular = Measure(comm, w, n, regular_op, &rc);
      const Stat s_padding = Measure(comm, w, n, padding_op, &rc);
      const Stat s_native = Measure(comm, w, n, native_op, &rc);
      const Stat s_tuw = Measure(comm, w, n, tuw_op, &rc);
      // TUW's result against the library's, on fresh data.
      bool same = true;
      if (gather) {
        for (int i = 0; i < counts[me]; ++i) own[i] = me * 7919 + i * 3 + 1;
        native_op();
        std::copy(all.begin(), all.begin() + m, check.begin());
        std::fill(all.begin(), all.end(), -1);
        tuw_op();
        if (me == root) same = std::equal(check.begin(), check.begin() + m, all.begin());
      } else {
        if (me == root) {
          for (int64_t i = 0; i < m; ++i) all[i] = static_cast<int>(i * 13 + 5);
        }
        native_op();
        std::vector<int> mine(own.begin(), own.begin() + counts[me]);
        std::fill(own.begin(), own.end(), -1);
        tuw_op();
        same = std::equal(mine.begin(), mine.end(), own.begin());
      }
      int bad = (!same || rc != MPI_SUCCESS || outcome != shim::Outcome::kRan) ? 1 : 0;
      int any_bad = 0;
      PMPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm);
      failures += any_bad;
      const bool g1 = problem == Problem::kSame && s_regular.SlowerThan(s_native);
      const bool g2_native = s_native.SlowerThan(s_padding);
      const bool g2_tuw = s_tuw.SlowerThan(s_padding);
      ++rows;
      g2_native_kept += !g2_native;
      g2_tuw_kept += !g2_tuw;
      g2_native_failed += g2_native;
      g2_tuw_kept_where_native_failed += g2_native && !g2_tuw;
      if (block <= 100) {
        ++small_rows;
        tuw_fast_min += s_tuw.min_us <= s_native.min_us;
        tuw_fast_avg += s_tuw.avg_us <= s_native.avg_us;
      }
      if (me == 0) {
        printf("%-11s %6lld %9lld %9lld | %s | %s | %s | %s | %5.2f %5.2f%s\n",
               std::string(NameOf(problem)).c_str(), static_cast<long long>(block),
               static_cast<long long>(m), static_cast<long long>(padded_total),
               Cell(s_regular, g1).c_str(), Cell(s_padding, false).c_str(),
               Cell(s_native, g2_native).c_str(), Cell(s_tuw, g2_tuw).c_str(),
               s_native.avg_us / s_tuw.avg_us, s_native.min_us / s_tuw.min_us,
               any_bad ? "  RESULT DIFFERS FROM THE LIBRARY'S" : "");
        fflush(stdout);
      }
    }
  }
  if (me == 0) {
    printf("summary: %s at least as fast as %s on %d of %d rows with b <= 100 by minimum, "
           "%d by average; guideline 2 kept by %s on %d of %d rows (%s: %d), and on %d of "
           "the %d rows where %s violates it; %d rows with wrong results\n",
           tuw, native, tuw_fast_min, small_rows, tuw_fast_avg, tuw, g2_tuw_kept, rows,
           native, g2_native_kept, g2_tuw_kept_where_native_failed, g2_native_failed,
           native, failures);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace colltune::bench
