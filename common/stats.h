// Summary statistics over latency samples, shared by the benchmark (its
// printed summary) and the daemon (what it stores and decides on).
#ifndef COLLTUNE_COMMON_STATS_H_
#define COLLTUNE_COMMON_STATS_H_

#include <cstdint>
#include <vector>

namespace colltune {

struct Summary {
  int64_t n = 0;
  double median = 0, mean = 0, min = 0, max = 0, stddev = 0;
};

// Median of `values` (the mean of the two middle values for even n); 0 for
// an empty vector.
double Median(std::vector<double> values);

Summary Summarize(const std::vector<double>& values);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_STATS_H_
