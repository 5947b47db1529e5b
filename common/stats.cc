#include "common/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace colltune {

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  if (values.size() % 2 == 1) return values[mid];
  const double upper = values[mid];
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2;
}

double UpperQuartile(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  // The upper half: from the middle value (odd n) or just past it (even n).
  return Median(std::vector<double>(values.begin() + n / 2, values.end()));
}

double LowerQuartile(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return Median(std::vector<double>(values.begin(), values.begin() + (n + 1) / 2));
}

Summary Summarize(const std::vector<double>& values) {
  Summary s;
  s.n = static_cast<int64_t>(values.size());
  if (values.empty()) return s;
  s.median = Median(values);
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / values.size();
  double sq = 0;
  for (double v : values) sq += (v - s.mean) * (v - s.mean);
  s.stddev = values.size() > 1 ? std::sqrt(sq / (values.size() - 1)) : 0;
  return s;
}


namespace {

// Number of arrangements of m x's and n y's with U = u (pairs x < y), for
// u = 0..m*n, by the usual recursion over the largest element.
std::vector<double> ExactUCounts(int m, int n) {
  // f[i][j] is the distribution for i x's and j y's, kept one row at a time.
  std::vector<std::vector<std::vector<double>>> f(
      m + 1, std::vector<std::vector<double>>(n + 1));
  for (int i = 0; i <= m; ++i) {
    for (int j = 0; j <= n; ++j) {
      f[i][j].assign(i * j + 1, 0);
      if (i == 0 || j == 0) {
        f[i][j][0] = 1;
        continue;
      }
      // The largest element is a y (it is above all i x's: adds i pairs) or
      // an x (adds none).
      for (int u = 0; u <= i * j; ++u) {
        double c = 0;
        if (u - i >= 0 && u - i <= i * (j - 1)) c += f[i][j - 1][u - i];
        if (u <= (i - 1) * j) c += f[i - 1][j][u];
        f[i][j][u] = c;
      }
    }
  }
  return f[m][n];
}

}  // namespace

double MannWhitneyLess(const std::vector<double>& x,
                       const std::vector<double>& y) {
  const size_t m = x.size(), n = y.size();
  if (m == 0 || n == 0) return 1;
  // Ranks of the pooled sample, ties getting their average rank.
  std::vector<std::pair<double, int>> pooled;
  pooled.reserve(m + n);
  for (double v : x) pooled.push_back({v, 0});
  for (double v : y) pooled.push_back({v, 1});
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_y = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double average = (i + 1 + j) / 2.0;
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second == 1) rank_sum_y += average;
    }
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  // U counts pairs with x below y (ties half): large when x is smaller.
  const double u = rank_sum_y - n * (n + 1) / 2.0;
  if (!ties && m * n <= 400) {
    std::vector<double> counts = ExactUCounts(static_cast<int>(m), static_cast<int>(n));
    double total = 0, tail = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      total += counts[k];
      if (static_cast<double>(k) >= u - 1e-9) tail += counts[k];
    }
    return tail / total;
  }
  const double mean = m * n / 2.0;
  const double N = static_cast<double>(m + n);
  const double variance =
      m * n / 12.0 * ((N + 1) - tie_term / (N * (N - 1)));
  if (variance <= 0) return u > mean ? 0 : 1;
  const double z = (u - mean - 0.5) / std::sqrt(variance);
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

bool SignificantlyFaster(const std::vector<double>& x,
                         const std::vector<double>& y, double alpha,
                         double margin, double* p_value) {
  *p_value = MannWhitneyLess(x, y);
  const double mx = Median(x);
  return *p_value <= alpha && mx > 0 && mx <= (1 - margin) * Median(y);
}

double RelativeStandardError(const std::vector<double>& values) {
  if (values.size() < 2) return std::numeric_limits<double>::infinity();
  const Summary s = Summarize(values);
  if (s.mean == 0) return std::numeric_limits<double>::infinity();
  return s.stddev / std::sqrt(static_cast<double>(values.size())) / s.mean;
}

}  // namespace colltune
