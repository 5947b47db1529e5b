// Which algorithms a campaign times in which regimes (bench/regime_plan.h).
#include "bench/regime_plan.h"

#include <gtest/gtest.h>

namespace colltune::bench {
namespace {

TEST(RegimeCandidates, DefaultThenTheFastestWithinThePrune) {
  RegimeOptions o;  // prune 1.10, at most 2 candidates
  // default 10; 9, 10.5 and 10.9 qualify (fastest first), 12 does not.
  const std::vector<size_t> got = RegimeCandidates(o, {10.0, 12.0, 10.9, 9.0, 10.5});
  EXPECT_EQ(got, (std::vector<size_t>{0, 3, 4}));
}

TEST(RegimeCandidates, EachFamilyGetsItsOwnCandidates) {
  RegimeOptions o;
  // At a derived-datatype point: two plain candidates (family 0) faster from
  // a barrier than the packed form (family 1), which still gets timed.
  const Algorithm packed = Algorithm::kBcastAsPacked;
  const Algorithm plain = Algorithm::kBcastAsScatterAllgather;
  const std::vector<int> families =
      FamiliesOf({Algorithm::kDefault, plain, plain, packed, plain});
  EXPECT_EQ(families, (std::vector<int>{0, 0, 0, 1, 0}));
  EXPECT_EQ(RegimeCandidates(o, {10.0, 8.0, 8.5, 9.0, 8.2}, families),
            (std::vector<size_t>{0, 1, 4, 3}));
  // One family: as before, the two fastest.
  EXPECT_EQ(RegimeCandidates(o, {10.0, 8.0, 8.5, 9.0, 8.2}), (std::vector<size_t>{0, 1, 4}));
}

TEST(RegimeCandidates, DefaultAloneWhenEveryCandidateIsFarSlower) {
  RegimeOptions o;
  EXPECT_EQ(RegimeCandidates(o, {10.0, 11.5, 20.0}), (std::vector<size_t>{0}));
  // Unmeasured (0) candidates are not timed either.
  EXPECT_EQ(RegimeCandidates(o, {10.0, 0.0}), (std::vector<size_t>{0}));
}

TEST(RegimeSurvivors, CandidatesThatLostTheLoopAreNotTimedAgain) {
  RegimeOptions o;
  const Algorithm a = Algorithm::kAllgatherAsGatherBcast;
  const Algorithm b = Algorithm::kAllgatherAsAlltoall;
  // default's median 2.0; a's 2.1 (within 10 %) stays, b's 2.5 goes.
  const std::vector<std::vector<double>> samples = {
      {2.0, 1.9, 2.2}, {2.1, 2.0, 2.3}, {2.5, 2.6, 2.4}};
  EXPECT_EQ(RegimeSurvivors(o, {Algorithm::kDefault, a, b}, samples),
            (std::vector<Algorithm>{Algorithm::kDefault, a}));
  // Faster candidates stay too.
  EXPECT_EQ(RegimeSurvivors(o, {Algorithm::kDefault, b}, {{2.0}, {1.0}}),
            (std::vector<Algorithm>{Algorithm::kDefault, b}));
}

TEST(RegimeSurvivors, NothingToCompareWithLeavesDefaultAlone) {
  RegimeOptions o;
  const Algorithm a = Algorithm::kAllgatherAsGatherBcast;
  // default has no time (it failed): no candidate can be judged.
  EXPECT_EQ(RegimeSurvivors(o, {Algorithm::kDefault, a}, {{}, {1.0}}),
            (std::vector<Algorithm>{Algorithm::kDefault}));
}

TEST(PlanRegimes, LoopsOfAboutLoopUsAndRepsInBounds) {
  RegimeOptions o;  // 1000 us loops, 4..3000 calls, 3..20 reps
  RegimePlan p = PlanRegimes(o, 100, 10e-6);  // 10 us a call
  EXPECT_EQ(p.calls, 100);
  EXPECT_EQ(p.reps, 3);  // 100 synchronized reps / 100 calls = 1, at least 3
  EXPECT_EQ(p.RepsIn(Regime::kImbalance), 3);
  p = PlanRegimes(o, 10000, 0.1e-6);  // 0.1 us a call: 10000 calls, capped
  EXPECT_EQ(p.calls, 3000);
  EXPECT_EQ(p.reps, 4);
  p = PlanRegimes(o, 1000, 1.0);  // 1 s a call: the fewest calls
  EXPECT_EQ(p.calls, 4);
  EXPECT_EQ(p.reps, 20);
  EXPECT_EQ(p.RepsIn(Regime::kImbalance), 10);
}

}  // namespace
}  // namespace colltune::bench
