#include "bench/measure.h"

#include <algorithm>
#include <random>

#include "bench/barrier.h"

namespace colltune::bench {

namespace {

// The q-quantile of `v` (nearest rank), v non-empty.
double Quantile(std::vector<double> v, double q) {
  const size_t k = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

std::vector<std::vector<double>> MeasureInterleaved(
    Workload& w, const std::vector<Algorithm>& algorithms,
    const std::vector<int>& nrep, int warmup, uint64_t seed,
    Synchronizer& sync, std::vector<int>* rc, const EarlyStop& stop, int* stopped) {
  const size_t k = algorithms.size();
  rc->assign(k, MPI_SUCCESS);
  auto run = [&](size_t a) {
    const int e = w.Run(algorithms[a]);
    if (e != MPI_SUCCESS && (*rc)[a] == MPI_SUCCESS) (*rc)[a] = e;
  };
  for (int i = 0; i < warmup; ++i) {
    for (size_t a = 0; a < k; ++a) run(a);
  }
  std::mt19937_64 shuffle(seed);  // portable and the same on every rank
  const int rounds = k ? *std::max_element(nrep.begin(), nrep.end()) : 0;
  const int block = stop.factor > 0 ? std::max(1, stop.block) : std::max(1, rounds);
  std::vector<char> active(k, 1);
  std::vector<std::vector<double>> out(k);
  for (int first = 0; first < rounds; first += block) {
    std::vector<size_t> order;  // algorithm of each repetition of this block
    for (int r = first; r < std::min(rounds, first + block); ++r) {
      const size_t begin = order.size();
      for (size_t a = 0; a < k; ++a) {
        if (r < nrep[a] && active[a]) order.push_back(a);
      }
      // Fisher-Yates with the engine's raw output: std::shuffle's use of it
      // is unspecified, and every rank must produce the same order.
      for (size_t i = order.size(); i > begin + 1; --i) {
        std::swap(order[i - 1], order[begin + shuffle() % (i - begin)]);
      }
    }
    if (order.empty()) break;
    std::vector<double> latency =
        sync.Time([&](int i) { run(order[i]); }, static_cast<int>(order.size()));
    for (size_t i = 0; i < order.size(); ++i) out[order[i]].push_back(latency[i]);
    if (stop.factor <= 0) continue;
    double best_q75 = 0, default_q75 = 0;
    bool any = false;
    for (size_t a = 0; a < k; ++a) {
      if (out[a].empty()) continue;
      const double q75 = Quantile(out[a], 0.75);
      if (!any || q75 < best_q75) best_q75 = q75;
      if (algorithms[a] == Algorithm::kDefault) default_q75 = q75;
      any = true;
    }
    for (size_t a = 0; a < k; ++a) {
      if (!active[a] || algorithms[a] == Algorithm::kDefault ||
          static_cast<int>(out[a].size()) < stop.min_samples ||
          static_cast<int>(out[a].size()) >= nrep[a]) {
        continue;
      }
      const double q25 = Quantile(out[a], 0.25);
      if (q25 > stop.factor * best_q75 ||
          (stop.default_factor > 0 && default_q75 > 0 &&
           q25 > stop.default_factor * default_q75)) {
        active[a] = 0;
        if (stopped != nullptr) ++*stopped;
      }
    }
  }
  return out;
}

}  // namespace colltune::bench
