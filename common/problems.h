// The irregular problem types of seed 000 §5: how block sizes are spread
// over the processes of an MPI_Gatherv or MPI_Scatterv. b is the average
// block size (in elements); every type but two_blocks keeps every block
// non-empty, so an implementation cannot profit from skipping empty ones.
// Campaigns measure gatherv and scatterv at these distributions (a point is
// a distribution and an average block size), colltune-bench --irregular
// reproduces the paper's tables with them, and colltuned checks the names.
#ifndef COLLTUNE_COMMON_PROBLEMS_H_
#define COLLTUNE_COMMON_PROBLEMS_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace colltune {

enum class Problem { kSame, kRandom, kSpikes, kDecreasing, kAlternating, kTwoBlocks };
inline constexpr Problem kAllProblems[] = {Problem::kSame,       Problem::kRandom,
                                           Problem::kSpikes,     Problem::kDecreasing,
                                           Problem::kAlternating, Problem::kTwoBlocks};

std::string_view NameOf(Problem problem);
std::optional<Problem> ParseProblem(std::string_view name);

// Block sizes for p processes: same (b each), random (uniform in [1, 2b]),
// spikes (rho*b with probability 1/rho, else 1; rho = 5), decreasing
// (floor(2b(p-i)/p) + 1), alternating (b + floor(b/2) on even ranks,
// b - floor(b/2) on odd), two blocks (b at ranks 0 and p-1, 0 elsewhere).
// Random choices come from `seed`, so every rank computes the same sizes.
std::vector<int> BlockCounts(Problem problem, int p, int64_t b, uint64_t seed);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_PROBLEMS_H_
