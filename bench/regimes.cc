#include "bench/regimes.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "bench/barrier.h"
#include "common/stats.h"

namespace colltune::bench {
namespace {

// Stands for a rank's computation between two calls: busy, as computation
// is (a sleeping rank would hand its core to another on an oversubscribed
// node, which no program's arithmetic does).
void Work(double seconds) {
  if (seconds <= 0) return;
  const double until = PMPI_Wtime() + seconds;
  while (PMPI_Wtime() < until) {
  }
}

// Round r's delays: every rank's, so each rank knows the largest total.
struct Delays {
  std::vector<double> mine;  // this rank's, one per call
  double most = 0;           // the largest total delay of one rank
};

Delays DrawDelays(uint64_t seed, int round, int ranks, int rank, int calls,
                  double max_delay) {
  std::mt19937_64 gen(seed ^ (0x9e3779b97f4a7c15ull * static_cast<uint64_t>(round + 1)));
  Delays d;
  d.mine.resize(static_cast<size_t>(calls));
  for (int q = 0; q < ranks; ++q) {
    double total = 0;
    for (int j = 0; j < calls; ++j) {
      // 53 random bits as a fraction in [0, 1): the same on every platform.
      const double u = static_cast<double>(gen() >> 11) * 0x1.0p-53;
      const double delay = u * max_delay;
      total += delay;
      if (q == rank) d.mine[static_cast<size_t>(j)] = delay;
    }
    d.most = std::max(d.most, total);
  }
  return d;
}

}  // namespace

RegimePlan PlanFromProbe(const RegimeOptions& o, Workload& w, int sync_reps_of_default,
                         double sync_median_of_default, MPI_Comm comm) {
  const int calls = PlanRegimes(o, sync_reps_of_default, sync_median_of_default).calls;
  DisseminationBarrier(comm);
  const double t0 = PMPI_Wtime();
  for (int j = 0; j < calls; ++j) w.Run(Algorithm::kDefault);
  const double mine = PMPI_Wtime() - t0;
  double slowest = mine;
  PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  return PlanRegimes(o, sync_reps_of_default, slowest / calls);
}

std::vector<std::vector<double>> MeasureRegime(Workload& w,
                                               const std::vector<Algorithm>& algorithms,
                                               Regime regime, int reps, int calls,
                                               double max_delay, uint64_t seed,
                                               bool warm, MPI_Comm comm,
                                               std::vector<int>* rc) {
  const size_t k = algorithms.size();
  rc->assign(k, MPI_SUCCESS);
  std::vector<std::vector<double>> out(k);
  if (k == 0 || reps <= 0) return out;
  calls = std::max(1, calls);
  int rank = 0, ranks = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &ranks);
  const bool uneven = regime == Regime::kImbalance && max_delay > 0;
  std::mt19937_64 shuffle(seed);
  std::vector<size_t> order(k);
  std::vector<double> local, work;
  local.reserve(k * static_cast<size_t>(reps));
  std::vector<size_t> who;
  who.reserve(local.capacity());
  // One untimed loop of each algorithm first (regimes.h says why).
  for (size_t a = 0; a < k && !warm; ++a) {
    DisseminationBarrier(comm);
    for (int j = 0; j < calls; ++j) {
      const int e = w.Run(algorithms[a]);
      if (e != MPI_SUCCESS && (*rc)[a] == MPI_SUCCESS) (*rc)[a] = e;
    }
  }
  for (int r = 0; r < reps; ++r) {
    for (size_t a = 0; a < k; ++a) order[a] = a;
    // Fisher-Yates with the engine's raw output (measure.cc says why).
    for (size_t i = k; i > 1; --i) std::swap(order[i - 1], order[shuffle() % i]);
    const Delays delays = uneven ? DrawDelays(seed, r, ranks, rank, calls, max_delay)
                                 : Delays{std::vector<double>(calls, 0.0), 0};
    for (size_t a : order) {
      DisseminationBarrier(comm);
      const double t0 = PMPI_Wtime();
      for (int j = 0; j < calls; ++j) {
        if (uneven) Work(delays.mine[static_cast<size_t>(j)]);
        const int e = w.Run(algorithms[a]);
        if (e != MPI_SUCCESS && (*rc)[a] == MPI_SUCCESS) (*rc)[a] = e;
      }
      local.push_back(PMPI_Wtime() - t0);
      work.push_back(delays.most);
      who.push_back(a);
    }
  }
  std::vector<double> slowest(local.size());
  PMPI_Allreduce(local.data(), slowest.data(), static_cast<int>(local.size()),
                 MPI_DOUBLE, MPI_MAX, comm);
  for (size_t i = 0; i < slowest.size(); ++i) {
    out[who[i]].push_back(std::max(0.0, slowest[i] - work[i]) / calls);
  }
  return out;
}

std::vector<Algorithm> SpecialistCandidates(const RegimeOptions& o,
                                            const std::vector<Algorithm>& algorithms,
                                            const std::vector<double>& sync_medians,
                                            const std::vector<Algorithm>& chosen) {
  std::vector<Algorithm> out;
  for (size_t a = 1; a < algorithms.size() && o.specialists > 0; ++a) {
    if (std::find(chosen.begin(), chosen.end(), algorithms[a]) == chosen.end() &&
        !IsDatatypeForm(algorithms[a]) && sync_medians[a] > 0 &&
        sync_medians[a] <= o.specialist_prune * sync_medians[0]) {
      out.push_back(algorithms[a]);
    }
  }
  return out;
}

void AddSpecialists(const RegimeOptions& o, Workload& w, const std::vector<Algorithm>& others,
                    Regime r, const RegimePlan& plan, double work, uint64_t seed, MPI_Comm comm,
                    std::vector<Algorithm>* series) {
  if (others.empty()) return;
  std::vector<Algorithm> screened = {Algorithm::kDefault};
  screened.insert(screened.end(), others.begin(), others.end());
  std::vector<int> rc;
  const std::vector<std::vector<double>> samples =
      MeasureRegime(w, screened, r, 1, std::max(4, plan.calls / 4), work,
                    seed ^ (0x5c7eull << IndexOf(r)), true, comm, &rc);
  const double def = samples.empty() ? 0 : Median(samples[0]);
  std::vector<std::pair<double, Algorithm>> faster;
  for (size_t i = 1; i < screened.size() && def > 0; ++i) {
    const double t = Median(samples[i]);
    if (rc[i] == MPI_SUCCESS && t > 0 && t * 1.10 < def) faster.push_back({t, screened[i]});
  }
  std::sort(faster.begin(), faster.end());
  for (size_t i = 0; i < faster.size() && static_cast<int>(i) < o.specialists; ++i) {
    if (std::find(series->begin(), series->end(), faster[i].second) == series->end()) {
      series->push_back(faster[i].second);
    }
  }
}

}  // namespace colltune::bench
