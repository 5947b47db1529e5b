#include "common/problems.h"

#include <random>

namespace colltune {
namespace {

constexpr std::string_view kNames[] = {"same",        "random",      "spikes",
                                       "decreasing",  "alternating", "two_blocks"};
constexpr int64_t kRho = 5;

}  // namespace

std::string_view NameOf(Problem problem) { return kNames[static_cast<int>(problem)]; }

std::optional<Problem> ParseProblem(std::string_view name) {
  for (Problem p : kAllProblems) {
    if (NameOf(p) == name) return p;
  }
  return std::nullopt;
}

std::vector<int> BlockCounts(Problem problem, int p, int64_t b, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> counts(p);
  for (int i = 0; i < p; ++i) {
    int64_t m = 0;
    switch (problem) {
      case Problem::kSame: m = b; break;
      case Problem::kRandom:
        m = std::uniform_int_distribution<int64_t>(1, 2 * b)(rng);
        break;
      case Problem::kSpikes:
        m = std::uniform_int_distribution<int64_t>(0, kRho - 1)(rng) == 0 ? kRho * b : 1;
        break;
      case Problem::kDecreasing: m = 2 * b * (p - i) / p + 1; break;
      case Problem::kAlternating: m = i % 2 == 0 ? b + b / 2 : b - b / 2; break;
      case Problem::kTwoBlocks: m = (i == 0 || i == p - 1) ? b : 0; break;
    }
    counts[i] = static_cast<int>(m);
  }
  return counts;
}

}  // namespace colltune
