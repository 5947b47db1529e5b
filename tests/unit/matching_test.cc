// Which profiles answer a table request (daemon/matching.h), above all the
// rule that a job's own section comes only from a profile measured on as
// many nodes as the job spans.
#include "daemon/matching.h"

#include <gtest/gtest.h>

namespace colltune::daemon {
namespace {

db::Profile MakeProfile(int64_t id, int comm_size, int nodes, int ppn,
                        std::string updated_at = "2026-11-27T00:00:00Z") {
  db::Profile p;
  p.id = id;
  p.key.cluster = "c";
  p.key.library = "Open MPI";
  p.key.library_version = "4.1.4";
  p.key.comm_size = comm_size;
  p.key.nodes = nodes;
  p.key.ppn = ppn;
  p.updated_at = std::move(updated_at);
  return p;
}

db::ProfileKey Job(int comm_size, int nodes, int ppn) {
  return MakeProfile(0, comm_size, nodes, ppn).key;
}

std::vector<int64_t> Ids(const ProfileChoice& c) {
  std::vector<int64_t> ids;
  for (const db::Profile& p : c.profiles) ids.push_back(p.id);
  return ids;
}

TEST(MatchingTest, OneNodeRulesDoNotCarryOverToSeveralNodes) {
  const std::vector<db::Profile> all = {MakeProfile(1, 4, 1, 4), MakeProfile(2, 2, 1, 2)};
  absl::StatusOr<ProfileChoice> c = ChooseProfiles(all, Job(4, 2, 2), 64);
  ASSERT_TRUE(c.ok()) << c.status();
  // The size-2 section stays for sub-communicators; size 4 is withheld.
  EXPECT_EQ(Ids(*c), std::vector<int64_t>({2}));
  EXPECT_NE(c->withheld.find("measured on 1 node, not on this job's 2 nodes"),
            std::string::npos)
      << c->withheld;
}

TEST(MatchingTest, SeveralNodesRulesDoNotCarryOverToOneNodeOrOtherCounts) {
  const std::vector<db::Profile> all = {MakeProfile(1, 4, 2, 2)};
  absl::StatusOr<ProfileChoice> one = ChooseProfiles(all, Job(4, 1, 4), 64);
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(one->profiles.empty());
  EXPECT_NE(one->withheld.find("measured on 2 nodes, not on this job's 1 node"),
            std::string::npos);
  absl::StatusOr<ProfileChoice> four = ChooseProfiles(all, Job(4, 4, 1), 64);
  ASSERT_TRUE(four.ok());
  EXPECT_TRUE(four->profiles.empty());
  EXPECT_FALSE(four->withheld.empty());
}

TEST(MatchingTest, SameNodeCountCarriesOverAcrossProcessesPerNode) {
  // 3 + 1 processes on 2 nodes (ppn 3) takes the rules of 2 x 2.
  const std::vector<db::Profile> all = {MakeProfile(1, 4, 2, 2), MakeProfile(2, 4, 1, 4)};
  absl::StatusOr<ProfileChoice> c = ChooseProfiles(all, Job(4, 2, 3), 64);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Ids(*c), std::vector<int64_t>({1}));
  EXPECT_TRUE(c->withheld.empty());
}

TEST(MatchingTest, ExactLayoutWinsAndUnknownLayoutsMatchAsBefore) {
  const std::vector<db::Profile> all = {
      MakeProfile(1, 4, 1, 4, "2026-11-27T02:00:00Z"),
      MakeProfile(2, 4, 2, 2, "2026-11-27T01:00:00Z")};
  absl::StatusOr<ProfileChoice> exact = ChooseProfiles(all, Job(4, 2, 2), 64);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(Ids(*exact), std::vector<int64_t>({2}));
  // A caller who does not know the layout (nodes 0) gets the newest.
  absl::StatusOr<ProfileChoice> any = ChooseProfiles(all, Job(4, 0, 0), 64);
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(Ids(*any), std::vector<int64_t>({1}));
  EXPECT_TRUE(any->withheld.empty());
}

db::Profile Placed(db::Profile p, std::string placement, std::string node_sizes = "") {
  p.key.placement = std::move(placement);
  p.key.node_sizes = std::move(node_sizes);
  return p;
}

TEST(MatchingTest, APlacementDoesNotCarryOverToAnother) {
  const std::vector<db::Profile> all = {Placed(MakeProfile(1, 4, 2, 2), "block")};
  db::ProfileKey job = Job(4, 2, 2);
  job.placement = "round_robin";
  absl::StatusOr<ProfileChoice> c = ChooseProfiles(all, job, 64);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->profiles.empty());
  EXPECT_NE(c->withheld.find("measured on 2 nodes with ranks placed block, not on this "
                             "job's 2 nodes with ranks placed round_robin"),
            std::string::npos)
      << c->withheld;
  // A profile stored before placements were recorded still serves.
  const std::vector<db::Profile> old = {MakeProfile(2, 4, 2, 2)};
  absl::StatusOr<ProfileChoice> o = ChooseProfiles(old, job, 64);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(Ids(*o), std::vector<int64_t>({2}));
}

TEST(MatchingTest, TheSameNodeSizesWinAmongLayoutsOfTheSameNodes) {
  const std::vector<db::Profile> all = {
      Placed(MakeProfile(1, 4, 2, 3, "2026-11-27T02:00:00Z"), "block", "3+1"),
      Placed(MakeProfile(2, 4, 2, 2, "2026-11-27T01:00:00Z"), "block")};
  db::ProfileKey job = Job(4, 2, 2);
  job.placement = "block";
  absl::StatusOr<ProfileChoice> regular = ChooseProfiles(all, job, 64);
  ASSERT_TRUE(regular.ok());
  EXPECT_EQ(Ids(*regular), std::vector<int64_t>({2}));
  job.ppn = 3;
  job.node_sizes = "3+1";
  absl::StatusOr<ProfileChoice> uneven = ChooseProfiles(all, job, 64);
  ASSERT_TRUE(uneven.ok());
  EXPECT_EQ(Ids(*uneven), std::vector<int64_t>({1}));
}

TEST(MatchingTest, AWithheldSectionTakesOneOfTheTablesPlaces) {
  std::vector<db::Profile> all = {MakeProfile(100, 8, 1, 8)};
  for (int size = 1; size <= 7; ++size) all.push_back(MakeProfile(size, size, 1, size));
  absl::StatusOr<ProfileChoice> c = ChooseProfiles(all, Job(8, 2, 4), 4);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->withheld.empty());
  // 3 profiles + the withheld section: the sizes nearest to 8.
  EXPECT_EQ(Ids(*c), std::vector<int64_t>({5, 6, 7}));
}

}  // namespace
}  // namespace colltune::daemon
