// What a job report says about the table's choices (daemon/observed.h).
#include "daemon/observed.h"

#include <gtest/gtest.h>

namespace colltune::daemon {
namespace {

db::JobReportRow::Timing Cell(Collective c, Algorithm a, int64_t min_bytes,
                              int64_t calls, int64_t timed, int64_t explored,
                              double median) {
  db::JobReportRow::Timing t;
  t.collective = c;
  t.algorithm = a;
  t.min_bytes = min_bytes;
  t.max_bytes = 2 * min_bytes - 1;
  t.calls = calls;
  t.timed_calls = timed;
  t.explored_calls = explored;
  t.median_seconds = median;
  return t;
}

TEST(Observed, DefaultEverywhereIsSpeedupOne) {
  auto out = ObserveCollectives(
      {Cell(Collective::kBcast, Algorithm::kDefault, 64, 1000, 8, 0, 2e-6)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].collective, Collective::kBcast);
  EXPECT_EQ(out[0].calls, 1000);
  EXPECT_EQ(out[0].tuned_calls, 0);
  EXPECT_DOUBLE_EQ(out[0].speedup, 1);
  EXPECT_EQ(out[0].compared_calls, 0);
}

TEST(Observed, ChoiceAgainstExploredDefaultWeightedByCalls) {
  // Bucket 64: the mock-up ran 1000 calls at 1 us, default was explored at
  // 2 us. Bucket 1024: 3000 calls at 4 us against default's 5 us.
  auto out = ObserveCollectives({
      Cell(Collective::kAllreduce, Algorithm::kAllreduceAsReduceBcast, 64, 1000, 8, 0, 1e-6),
      Cell(Collective::kAllreduce, Algorithm::kDefault, 64, 5, 5, 5, 2e-6),
      Cell(Collective::kAllreduce, Algorithm::kAllreduceAsReduceBcast, 1024, 3000, 24, 0, 4e-6),
      Cell(Collective::kAllreduce, Algorithm::kDefault, 1024, 5, 5, 5, 5e-6),
  });
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].calls, 4010);
  EXPECT_EQ(out[0].tuned_calls, 4000);
  EXPECT_EQ(out[0].compared_calls, 4000);
  // (1000 * 2 + 3000 * 5) / (1000 * 1 + 3000 * 4) = 17000 / 13000
  EXPECT_NEAR(out[0].speedup, 17.0 / 13.0, 1e-12);
}

TEST(Observed, ExploredMockupsDoNotCountAsTheChoice) {
  // The table kept default; the job explored a mock-up 5 times.
  auto out = ObserveCollectives({
      Cell(Collective::kGather, Algorithm::kDefault, 64, 1000, 8, 0, 3e-6),
      Cell(Collective::kGather, Algorithm::kGatherAsGatherv, 64, 5, 5, 5, 1e-6),
  });
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tuned_calls, 0);
  EXPECT_DOUBLE_EQ(out[0].speedup, 1);
}

TEST(Observed, NoDefaultToCompareWithIsZero) {
  auto out = ObserveCollectives({
      Cell(Collective::kScatter, Algorithm::kScatterAsTuwTree, 2048, 500, 4, 0, 1e-6),
      // Too few timed default calls to stand for default.
      Cell(Collective::kScatter, Algorithm::kDefault, 2048, 2, 2, 2, 9e-6),
  });
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tuned_calls, 500);
  EXPECT_EQ(out[0].compared_calls, 0);
  EXPECT_DOUBLE_EQ(out[0].speedup, 0);
}

TEST(Observed, OneEntryPerCollectiveInCatalogOrder) {
  auto out = ObserveCollectives({
      Cell(Collective::kScan, Algorithm::kDefault, 8, 10, 1, 0, 1e-6),
      Cell(Collective::kAllgather, Algorithm::kDefault, 8, 10, 1, 0, 1e-6),
      Cell(Collective::kAllgather, Algorithm::kDefault, 16, 10, 1, 0, 1e-6),
  });
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].collective, Collective::kAllgather);
  EXPECT_EQ(out[0].calls, 20);
  EXPECT_EQ(out[1].collective, Collective::kScan);
}

}  // namespace
}  // namespace colltune::daemon
