#include "bench/measure.h"

#include <algorithm>
#include <random>

#include "bench/barrier.h"

namespace colltune::bench {

std::vector<std::vector<double>> MeasureInterleaved(
    Workload& w, const std::vector<Algorithm>& algorithms,
    const std::vector<int>& nrep, int warmup, uint64_t seed,
    Synchronizer& sync, std::vector<int>* rc) {
  const size_t k = algorithms.size();
  rc->assign(k, MPI_SUCCESS);
  auto run = [&](size_t a) {
    const int e = w.Run(algorithms[a]);
    if (e != MPI_SUCCESS && (*rc)[a] == MPI_SUCCESS) (*rc)[a] = e;
  };
  for (int i = 0; i < warmup; ++i) {
    for (size_t a = 0; a < k; ++a) run(a);
  }
  std::vector<size_t> order;  // algorithm of each repetition
  std::mt19937_64 shuffle(seed);  // portable and the same on every rank
  const int rounds = k ? *std::max_element(nrep.begin(), nrep.end()) : 0;
  for (int r = 0; r < rounds; ++r) {
    const size_t begin = order.size();
    for (size_t a = 0; a < k; ++a) {
      if (r < nrep[a]) order.push_back(a);
    }
    // Fisher-Yates with the engine's raw output: std::shuffle's use of it is
    // unspecified, and every rank must produce the same order.
    for (size_t i = order.size() - 1; i > begin; --i) {
      std::swap(order[i], order[begin + shuffle() % (i - begin + 1)]);
    }
  }
  std::vector<double> latency =
      sync.Time([&](int i) { run(order[i]); }, static_cast<int>(order.size()));
  std::vector<std::vector<double>> out(k);
  for (size_t i = 0; i < order.size(); ++i) out[order[i]].push_back(latency[i]);
  return out;
}

}  // namespace colltune::bench
