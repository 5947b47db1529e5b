// The exploration schedule: which of a bucket's candidate bursts run.
#include "shim/runtime/explore_schedule.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace colltune::shim {
namespace {

TEST(ExploreSchedule, TheFirstBurstsAllRun) {
  uint64_t ordinal = 0;
  EXPECT_FALSE(BurstRuns(0, &ordinal));
  for (uint64_t c = 1; c <= kFullRateBursts; ++c) {
    ASSERT_TRUE(BurstRuns(c, &ordinal)) << c;
    EXPECT_EQ(ordinal, c);
  }
}

TEST(ExploreSchedule, RunningBurstsAreNumberedWithoutGaps) {
  uint64_t expected = 1, ordinal = 0;
  for (uint64_t c = 1; c <= (uint64_t{1} << 22); ++c) {
    if (!BurstRuns(c, &ordinal)) continue;
    ASSERT_EQ(ordinal, expected) << "candidate " << c;
    ++expected;
  }
  // 2^22 candidates = kFullRateBursts * 2^16: 16 doublings past the first
  // kFullRateBursts, each adding half as many.
  EXPECT_EQ(expected - 1, kFullRateBursts + 16 * kFullRateBursts / 2);
}

TEST(ExploreSchedule, EachDoublingHalvesTheRate) {
  uint64_t ordinal = 0;
  for (int j = 0; j < 10; ++j) {
    const uint64_t lo = kFullRateBursts << j, hi = 2 * lo;
    uint64_t runs = 0;
    for (uint64_t c = lo + 1; c <= hi; ++c) runs += BurstRuns(c, &ordinal) ? 1 : 0;
    EXPECT_EQ(runs, kFullRateBursts / 2) << "candidates (" << lo << ", " << hi << "]";
    // Evenly spread: every (2^(j+1))-th candidate.
    const uint64_t stride = uint64_t{2} << j;
    for (uint64_t c = lo + 1; c <= hi; ++c) {
      EXPECT_EQ(BurstRuns(c, &ordinal), (c - lo) % stride == 0) << c;
    }
  }
}

}  // namespace
}  // namespace colltune::shim
