// What `colltune evaluate --launches N` concludes from the launches' records
// (common/evaluation.h). Expected values are worked out by hand from the
// medians given here.
#include "common/evaluation.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace colltune::evaluation {
namespace {

constexpr double kUs = 1e-6;

Algorithm Named(const char* name, Collective c) { return *ParseAlgorithm(name, c); }

// One point of one launch: the candidates' medians (default first) and the
// tuned series'. Even and odd halves equal the median: no cross-validation
// effects in these tests.
PointRecord Point(Collective c, int64_t bytes, const char* tuned,
                  std::vector<std::pair<const char*, double>> candidates, double tuned_us) {
  PointRecord r;
  r.collective = c;
  r.bytes = bytes;
  r.tuned = Named(tuned, c);
  for (const auto& [name, us] : candidates) {
    r.candidates.push_back({Named(name, c), us * kUs, us * kUs, us * kUs});
  }
  r.tuned_series = {r.tuned, tuned_us * kUs, tuned_us * kUs, tuned_us * kUs};
  return r;
}

TEST(EvaluationTest, PenaltyIsWhatTheTableCostsAgainstTheFastestCandidate) {
  const Collective c = Collective::kAllreduce;
  // 64 B: the table runs the fastest candidate (penalty 0). 1 KiB: it keeps
  // default at 10 us where a native algorithm takes 5 (penalty 1 - 5/10).
  std::vector<PointRecord> launch = {
      Point(c, 64, "native:basic_linear",
            {{"default", 10}, {"native:basic_linear", 8}, {"native:ring", 9}}, 8),
      Point(c, 1024, "default", {{"default", 10}, {"native:ring", 5}}, 10),
  };
  const Summary s = Summarize({launch}, 0.10);
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_DOUBLE_EQ(s.mean_penalty, 0.25);
  EXPECT_DOUBLE_EQ(s.worst_vs_oracle, 0.5);
  EXPECT_EQ(s.worst->bytes, 1024);
  EXPECT_EQ(s.worst->oracle, Named("native:ring", c));
  EXPECT_EQ(s.changed, 1);
  EXPECT_EQ(s.unchanged, 1);
}

TEST(EvaluationTest, TheCrossLaunchOracleIsPickedWithoutTheLaunchItIsTimedIn) {
  const Collective c = Collective::kAllreduce;
  // Three launches; the table keeps default (10 us). native:ring is fast in
  // launch 0 only (5 us, else 11), native:basic_linear a steady 9. The
  // in-sample oracle is the candidate with the smallest median of medians:
  // basic_linear (9 < ring's 11). Cross-launch: launch 0 picks on launches
  // 1 and 2 (basic_linear 9 against ring 11) and times basic_linear there:
  // 9; launch 1 picks on 0 and 2 (ring median 8 < basic_linear 9): ring's
  // 11 in launch 1; launch 2 likewise: 11. Median over launches 11: worse
  // than default, and the ratio oracle/tuned is 11/10.
  std::vector<std::vector<PointRecord>> launches;
  const double ring[3] = {5, 11, 11};
  for (int l = 0; l < 3; ++l) {
    launches.push_back({Point(c, 1024, "default",
                              {{"default", 10}, {"native:ring", ring[l]},
                               {"native:basic_linear", 9}},
                              10)});
  }
  const Summary s = Summarize(launches, 0.10);
  ASSERT_EQ(s.points.size(), 1u);
  EXPECT_DOUBLE_EQ(s.points[0].t_oracle, 9 * kUs);
  EXPECT_DOUBLE_EQ(s.points[0].t_oracle_xl, 11 * kUs);
  EXPECT_EQ(s.cross_launch_points, 1);
  EXPECT_DOUBLE_EQ(s.median_vs_oracle_xl, 1.1);
  // A candidate timed in one launch only (a screened specialist) cannot be
  // picked on the others, and one launch has no cross-launch oracle.
  std::vector<std::vector<PointRecord>> specialist = launches;
  specialist[0][0].candidates.push_back({Named("native:recursive_doubling", c), 1 * kUs,
                                         1 * kUs, 1 * kUs});
  EXPECT_DOUBLE_EQ(Summarize(specialist, 0.10).points[0].t_oracle_xl, 11 * kUs);
  EXPECT_DOUBLE_EQ(Summarize(specialist, 0.10).points[0].t_oracle, 1 * kUs);
  const Summary one = Summarize({launches[0]}, 0.10);
  EXPECT_EQ(one.cross_launch_points, 0);
  EXPECT_DOUBLE_EQ(one.points[0].t_oracle_xl, 0);
}

TEST(EvaluationTest, ThePairedOracleComparesEachCandidateWithTunedInTheSameLaunch) {
  const Collective c = Collective::kAllreduce;
  // Five launches whose modes move every candidate (MPICH's scatter of a
  // tiled type, 1 MiB, measured here: the launches at root 1 run slower).
  // The table keeps default; native:ring is level in three launches and
  // 13 % faster in two. Medians of medians: default 527, ring 458, so the
  // in-sample oracle says 0.869. Per launch, ring over tuned: 390/388,
  // 458/527, 426/442, 472/545, 674/662; their median is 426/442 (0.964).
  const double def[5] = {388, 527, 442, 545, 662};
  const double ring[5] = {390, 458, 426, 472, 674};
  std::vector<std::vector<PointRecord>> launches;
  for (int l = 0; l < 5; ++l) {
    launches.push_back(
        {Point(c, 1 << 20, "default", {{"default", def[l]}, {"native:ring", ring[l]}}, def[l])});
  }
  const Summary s = Summarize(launches, 0.10);
  ASSERT_EQ(s.points.size(), 1u);
  EXPECT_DOUBLE_EQ(s.median_vs_oracle, 458.0 / 527.0);
  EXPECT_DOUBLE_EQ(s.points[0].vs_oracle_paired, 426.0 / 442.0);
  EXPECT_DOUBLE_EQ(s.median_vs_oracle_paired, 426.0 / 442.0);
  // A candidate timed in one launch of five (a screened specialist) is that
  // launch's luck and is left out; one timed in three of five counts.
  std::vector<std::vector<PointRecord>> more = launches;
  more[1][0].candidates.push_back({Named("native:recursive_doubling", c), 100 * kUs,
                                   100 * kUs, 100 * kUs});
  EXPECT_DOUBLE_EQ(Summarize(more, 0.10).points[0].vs_oracle_paired, 426.0 / 442.0);
  for (int l : {0, 2, 3}) {
    more[l][0].candidates.push_back({Named("native:basic_linear", c), def[l] * 0.5 * kUs,
                                     def[l] * 0.5 * kUs, def[l] * 0.5 * kUs});
  }
  EXPECT_DOUBLE_EQ(Summarize(more, 0.10).points[0].vs_oracle_paired, 0.5);
  // Where no candidate beats tuned in the median of its launches, the
  // oracle is tuned's own algorithm: 1.
  std::vector<std::vector<PointRecord>> slow;
  for (int l = 0; l < 5; ++l) {
    slow.push_back({Point(c, 1 << 20, "default",
                          {{"default", def[l] * 1.01}, {"native:ring", def[l] * 1.2}}, def[l])});
  }
  EXPECT_DOUBLE_EQ(Summarize(slow, 0.10).points[0].vs_oracle_paired, 1.0);
}

TEST(EvaluationTest, SlowerThanDefaultIsCountedBesideItsNoiseFloor) {
  const Collective c = Collective::kBcast;
  const double def[3] = {10.0, 10.1, 9.9};
  // Per launch, the tuned series' median at each point.
  const double always_slower[3] = {12.0, 12.2, 11.9};  // > 10 % in every launch
  const double once_fast[3] = {12.0, 9.5, 12.2};       // median 12: > 10 %, not always
  const double level[3] = {10.05, 9.95, 10.2};         // as default
  const double aa_slower[3] = {11.5, 11.6, 11.4};      // default timed twice, > 10 %
  std::vector<std::vector<PointRecord>> launches(3);
  for (int i = 0; i < 3; ++i) {
    launches[i] = {
        Point(c, 8, "native:chain", {{"default", def[i]}, {"native:chain", 9}}, always_slower[i]),
        Point(c, 64, "native:chain", {{"default", def[i]}, {"native:chain", 9}}, once_fast[i]),
        Point(c, 512, "native:chain", {{"default", def[i]}, {"native:chain", 9}}, level[i]),
        Point(c, 4096, "default", {{"default", def[i]}, {"native:chain", 11}}, aa_slower[i]),
        Point(c, 8192, "default", {{"default", def[i]}, {"native:chain", 11}}, level[i]),
    };
  }
  const Summary s = Summarize(launches, 0.10, 0.05);
  EXPECT_EQ(s.changed, 3);
  EXPECT_EQ(s.slower_than_default, 2);    // 8 and 64 B
  EXPECT_EQ(s.significantly_slower, 1);   // 8 B only: 64 B was faster in one launch
  EXPECT_EQ(s.unchanged, 2);
  EXPECT_EQ(s.unchanged_slower, 1);       // 4 KiB
  EXPECT_EQ(s.unchanged_significantly_slower, 1);
  for (const PointVerdict& v : s.points) {
    EXPECT_EQ(v.launches, 3);
    EXPECT_EQ(v.significantly_slower, v.bytes == 8 || v.bytes == 4096) << v.bytes;
  }

  // A 9 % gap in every launch is within the margin.
  std::vector<std::vector<PointRecord>> near(3);
  for (int i = 0; i < 3; ++i) {
    near[i] = {Point(c, 8, "native:chain", {{"default", def[i]}, {"native:chain", 9}},
                     def[i] * 1.09)};
  }
  const Summary n = Summarize(near, 0.10, 0.05);
  EXPECT_EQ(n.slower_than_default, 0);
  EXPECT_EQ(n.significantly_slower, 0);
}

TEST(EvaluationTest, TwoLaunchesCannotMakeADifferenceSignificant) {
  // With 2 launches against 2 the smallest one-sided Mann-Whitney p is 1/6.
  const Collective c = Collective::kReduce;
  std::vector<std::vector<PointRecord>> launches = {
      {Point(c, 8, "native:linear", {{"default", 10}, {"native:linear", 9}}, 20)},
      {Point(c, 8, "native:linear", {{"default", 10.5}, {"native:linear", 9}}, 21)},
  };
  const Summary s = Summarize(launches, 0.10, 0.05);
  EXPECT_EQ(s.slower_than_default, 1);
  EXPECT_EQ(s.significantly_slower, 0);
  const Summary loose = Summarize(launches, 0.10, 0.2);
  EXPECT_EQ(loose.significantly_slower, 1);
}

TEST(EvaluationTest, EachRegimeIsSummarizedApartAndTravelsInItsRecord) {
  const Collective c = Collective::kReduce;
  // The table's choice (an unsegmented tree) wins from a barrier and loses
  // back to back.
  PointRecord sync = Point(c, 1 << 20, "native:binomial",
                           {{"default", 700}, {"native:binomial", 560}}, 560);
  PointRecord loop = Point(c, 1 << 20, "native:binomial",
                           {{"default", 340}, {"native:binomial", 1000}}, 1000);
  loop.regime = Regime::kLoop;
  std::string error;
  PointRecord back;
  ASSERT_TRUE(ParseRecord(FormatRecord(loop), &back, &error)) << error;
  EXPECT_EQ(back.regime, Regime::kLoop);
  EXPECT_EQ(FormatRecord(loop).substr(FormatRecord(loop).size() - 5), " loop");
  ASSERT_TRUE(ParseRecord(FormatRecord(sync), &back, &error)) << error;
  EXPECT_EQ(back.regime, Regime::kSync) << "no token: sync, as older records";
  EXPECT_FALSE(ParseRecord(FormatRecord(sync) + " warp", &back, &error));
  EXPECT_FALSE(ParseRecord(FormatRecord(loop) + " loop", &back, &error));

  const std::vector<std::vector<PointRecord>> launches = {{sync, loop}};
  EXPECT_EQ(RegimesIn(launches), Bit(Regime::kSync) | Bit(Regime::kLoop));
  const Summary in_sync = Summarize(launches, 0.10, 0.05);
  const Summary in_loop = Summarize(launches, 0.10, 0.05, Regime::kLoop);
  ASSERT_EQ(in_sync.points.size(), 1u);
  ASSERT_EQ(in_loop.points.size(), 1u);
  EXPECT_DOUBLE_EQ(in_sync.geomean_speedup, 700.0 / 560);
  EXPECT_DOUBLE_EQ(in_loop.geomean_speedup, 340.0 / 1000);
  EXPECT_EQ(in_sync.slower_than_default, 0);
  EXPECT_EQ(in_loop.slower_than_default, 1);
  EXPECT_EQ(in_loop.worst->oracle, Algorithm::kDefault);
  EXPECT_TRUE(Summarize(launches, 0.10, 0.05, Regime::kImbalance).points.empty());
}

// A table runs one algorithm in every regime: the best single choice is
// the fastest over the regimes of those no more than the slack slower than
// default in any, and a regime's oracle slower elsewhere is out of reach.
TEST(EvaluationTest, TheBestSingleChoiceIsNoSlowerThanDefaultInAnyRegime) {
  const Collective c = Collective::kAllreduce;
  // 4 KiB: ring is 2x faster back to back and 1.5x slower from a barrier;
  // basic_linear 1.25x faster in both; the table kept default.
  // 64 KiB: every candidate is more than 3 % slower somewhere: default.
  std::vector<PointRecord> launch = {
      Point(c, 4096, "default",
            {{"default", 10}, {"native:ring", 15}, {"native:basic_linear", 8}}, 10),
      Point(c, 4096, "default",
            {{"default", 20}, {"native:ring", 10}, {"native:basic_linear", 16}}, 20),
      Point(c, 65536, "native:ring", {{"default", 100}, {"native:ring", 104}}, 104),
      Point(c, 65536, "native:ring", {{"default", 100}, {"native:ring", 50}}, 50),
  };
  launch[1].regime = launch[3].regime = Regime::kLoop;
  const std::vector<SingleChoice> points = BestSingleChoices({launch}, Grid::kContiguous);
  ASSERT_EQ(points.size(), 2u);
  const SingleChoice& small = points[0].bytes == 4096 ? points[0] : points[1];
  const SingleChoice& large = points[0].bytes == 4096 ? points[1] : points[0];
  EXPECT_EQ(small.best, Named("native:basic_linear", c));
  ASSERT_EQ(small.t_best.size(), 2u);
  EXPECT_DOUBLE_EQ(small.t_best[1] / small.t_tuned[1], 16.0 / 20);
  EXPECT_EQ(small.regime_oracle[1], Named("native:ring", c));
  EXPECT_DOUBLE_EQ(small.regime_oracle_worst[1], 1.5);
  EXPECT_EQ(small.regime_oracle[0], Named("native:basic_linear", c));
  EXPECT_EQ(large.best, Algorithm::kDefault) << "4 % slower from a barrier";
  EXPECT_EQ(BestSingleChoices({launch}, Grid::kContiguous, 0.05)[1].best,
            Named("native:ring", c))
      << "within a 5 % slack";
  EXPECT_TRUE(BestSingleChoices({launch}, Grid::kDatatypes).empty());
  // A point not timed in every regime is left out.
  launch.pop_back();
  EXPECT_EQ(BestSingleChoices({launch}, Grid::kContiguous).size(), 1u);
}

// Seed 003's datatype grid: its points travel with their layout and are
// summarized apart from the contiguous ones, even at the same size.
TEST(EvaluationTest, TheDatatypeGridIsSummarizedApart) {
  const Collective c = Collective::kBcast;
  PointRecord plain = Point(c, 32768, "default", {{"default", 10}}, 10);
  PointRecord tiled = Point(c, 32768, "bcast_as_packed",
                            {{"default", 20}, {"bcast_as_packed", 10}}, 10);
  tiled.layout = "tiled/8B";
  PointRecord parsed;
  std::string error;
  ASSERT_TRUE(ParseRecord(FormatRecord(tiled), &parsed, &error)) << error;
  EXPECT_EQ(FormatRecord(tiled).rfind("point bcast@tiled/8B 32768 bcast_as_packed", 0), 0u);
  EXPECT_EQ(parsed.layout, "tiled/8B");
  EXPECT_EQ(parsed.tuned, Named("bcast_as_packed", c));
  EXPECT_FALSE(ParseRecord("point bcast@spiral 8 default 2 default 1 1 1 tuned 1 1 1", &parsed,
                           &error));
  EXPECT_NE(error.find("unknown datatype layout"), std::string::npos) << error;
  EXPECT_FALSE(ParseRecord("point bcast@other 8 default 2 default 1 1 1 tuned 1 1 1", &parsed,
                           &error));

  const std::vector<std::vector<PointRecord>> launches = {{plain, tiled}};
  EXPECT_TRUE(HasDatatypes(launches));
  EXPECT_FALSE(HasDatatypes({{plain}}));
  const Summary contiguous = Summarize(launches, 0.10);
  ASSERT_EQ(contiguous.points.size(), 1u);
  EXPECT_EQ(contiguous.points[0].layout, "");
  EXPECT_DOUBLE_EQ(contiguous.geomean_speedup, 1.0);
  const Summary grid = Summarize(launches, 0.10, 0.05, Regime::kSync, Grid::kDatatypes);
  ASSERT_EQ(grid.points.size(), 1u);
  EXPECT_EQ(grid.points[0].layout, "tiled/8B");
  EXPECT_DOUBLE_EQ(grid.geomean_speedup, 2.0);
  EXPECT_DOUBLE_EQ(grid.median_vs_oracle, 1.0);
  EXPECT_EQ(PointName(c, "tiled/8B"), "bcast@tiled/8B");
}

}  // namespace
}  // namespace colltune::evaluation
