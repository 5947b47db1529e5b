#include "daemon/engine.h"

#include <gtest/gtest.h>

#include <cmath>

namespace colltune::daemon {
namespace {

constexpr Algorithm kDef = Algorithm::kDefault;
constexpr Algorithm kRB = Algorithm::kAllreduceAsReduceBcast;
constexpr Algorithm kRSA = Algorithm::kAllreduceAsReducescatterblockAllgather;

// One median per launch, launches numbered 0, 1, 2, ...
void Add(std::vector<LaunchMedian>* v, Algorithm a, int64_t bytes,
         std::initializer_list<double> medians) {
  int64_t launch = 0;
  for (double m : medians) {
    v->push_back({Collective::kAllreduce, a, bytes, launch++, m});
  }
}

TEST(Engine, ReplacesDefaultOnlyBeyondTheMargin) {
  std::vector<LaunchMedian> p;
  Add(&p, kDef, 8, {10, 10, 10});
  Add(&p, kRB, 8, {9.5, 9.5, 9.5});  // 5% faster: not enough
  Add(&p, kDef, 1024, {10, 11, 12});
  Add(&p, kRB, 1024, {8, 9, 10});    // median 9 <= 0.9 * 11
  std::vector<Rule> rules = ComputeRules(p, EngineOptions{0.10});
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].algorithm, kDef);
  EXPECT_EQ(rules[0].min_bytes, 0u);
  EXPECT_EQ(rules[0].max_bytes, 90u) << "boundary at the geometric midpoint";
  EXPECT_EQ(rules[1].algorithm, kRB);
  EXPECT_EQ(rules[1].min_bytes, 91u);
  EXPECT_EQ(rules[1].max_bytes, kNoUpperBound);
  EXPECT_NEAR(rules[1].speedup, 11.0 / 9.0, 1e-12);
  // With a 1% margin the 5% win counts too, and the ranges merge.
  rules = ComputeRules(p, EngineOptions{0.01});
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].algorithm, kRB);
  EXPECT_NEAR(rules[0].speedup, std::sqrt(10 / 9.5 * 11.0 / 9.0), 1e-12);
}

TEST(Engine, AWinThatOneLaunchContradictsIsNoWin) {
  std::vector<LaunchMedian> p;
  Add(&p, kDef, 1024, {10, 10, 10});
  Add(&p, kRB, 1024, {5, 5, 12});  // much faster in median, slower once
  Add(&p, kRSA, 1024, {8, 8, 9});  // a little slower than RB, but always wins
  std::vector<Rule> rules = ComputeRules(p, EngineOptions{});
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].algorithm, kRSA);
  EXPECT_NEAR(rules[0].speedup, 10.0 / 8.0, 1e-12);
}

TEST(Engine, PicksTheFastestCandidateAndMergesRuns) {
  std::vector<LaunchMedian> p;
  for (int64_t b : {1, 4, 16, 64, 256}) {
    Add(&p, kDef, b, {10});
    Add(&p, kRB, b, {b <= 16 ? 5.0 : 20.0});
    Add(&p, kRSA, b, {b >= 64 ? 4.0 : 30.0});
  }
  std::vector<Rule> rules = ComputeRules(p, EngineOptions{});
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].algorithm, kRB);
  EXPECT_EQ(rules[0].min_bytes, 0u);
  EXPECT_EQ(rules[0].max_bytes, 31u);  // ceil(sqrt(16*64)) = 32
  EXPECT_EQ(rules[1].algorithm, kRSA);
  EXPECT_EQ(rules[1].min_bytes, 32u);
}

TEST(Engine, SizesWithoutDefaultDecideNothing) {
  std::vector<LaunchMedian> p;
  Add(&p, kRB, 64, {1});
  EXPECT_TRUE(ComputeRules(p, EngineOptions{}).empty());
  p.push_back({Collective::kGatherv, kDef, 64, 0, 1.0});
  EXPECT_TRUE(ComputeRules(p, EngineOptions{}).empty()) << "irregular: no ranges";
}

TEST(Engine, SameDecisionsIgnoresSpeedups) {
  Rule a{Collective::kBcast, 0, kNoUpperBound, kDef, 1.0};
  Rule b = a;
  b.speedup = 3;
  EXPECT_TRUE(SameDecisions({a}, {b}));
  b.algorithm = Algorithm::kBcastAsScatterAllgather;
  EXPECT_FALSE(SameDecisions({a}, {b}));
  EXPECT_FALSE(SameDecisions({a}, {a, a}));
}

}  // namespace
}  // namespace colltune::daemon
