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

// Upper quartile of `values`: the median of the values above the median
// (of the upper half, the middle value included for odd n, as Tukey's
// hinge); 0 for an empty vector.
double UpperQuartile(std::vector<double> values);

// Lower quartile of `values`: the median of the lower half, the middle value
// included for odd n (Tukey's hinge); 0 for an empty vector.
double LowerQuartile(std::vector<double> values);

Summary Summarize(const std::vector<double>& values);

// One-sided Mann-Whitney (Wilcoxon rank-sum) test of "x tends to be smaller
// than y": the p-value of observing a U statistic at least this extreme if
// both samples came from one distribution. Exact for small samples without
// ties (n_x * n_y <= 400), else the normal approximation with tie and
// continuity corrections (R's wilcox.test(exact = FALSE), which PGMPI uses).
// 1 if either sample is empty.
double MannWhitneyLess(const std::vector<double>& x, const std::vector<double>& y);

// The decision rule of colltune (engine and evaluation alike): x is faster
// than y if the one-sided rank test says so at level `alpha` and x's median
// is at least `margin` below y's. *p_value gets the test's p-value.
bool SignificantlyFaster(const std::vector<double>& x,
                         const std::vector<double>& y, double alpha,
                         double margin, double* p_value);

// The relative standard error of the mean: stddev / sqrt(n) / mean; infinite
// for fewer than two values or a zero mean.
double RelativeStandardError(const std::vector<double>& values);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_STATS_H_
