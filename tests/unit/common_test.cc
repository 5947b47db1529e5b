// The catalogue, library identification and statistics.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/catalog.h"
#include "common/histogram.h"
#include "common/layout.h"
#include "common/library_id.h"
#include "common/quirks.h"
#include "common/regime.h"
#include "common/report.h"
#include "common/stats.h"
#include "tests/unit/test_data.h"

#include <cmath>

namespace colltune {
namespace {

// The hierarchical mock-ups are the ones named <collective>_as_nodes or
// _as_lanes (the naming the catalogue's section keeps): a new one that the
// list in catalog.cc misses would be explored on one node.
TEST(Catalog, HierarchicalAreTheNodeAndLaneMockups) {
  int hierarchical = 0;
  for (int a = 0; a < kNumAlgorithms; ++a) {
    const AlgorithmInfo& info = InfoOf(static_cast<Algorithm>(a));
    const std::string name(info.name);
    const auto ends = [&](const std::string& tail) {
      return name.size() > tail.size() &&
             name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    const bool by_name = !info.native() && (ends("_as_nodes") || ends("_as_lanes"));
    EXPECT_EQ(IsHierarchical(info.id), by_name) << name;
    hierarchical += by_name ? 1 : 0;
  }
  EXPECT_GE(hierarchical, 8);
}

TEST(Catalog, NamesRoundTripAndAreUnique) {
  // Unique per collective: native names repeat across collectives.
  std::set<std::pair<int, std::string_view>> names;
  for (int a = 0; a < kNumAlgorithms; ++a) {
    const AlgorithmInfo& info = InfoOf(static_cast<Algorithm>(a));
    EXPECT_EQ(IndexOf(info.id), a) << "table order matches the enum";
    EXPECT_TRUE(names.insert({IndexOf(info.collective), info.name}).second) << info.name;
    EXPECT_EQ(ParseAlgorithm(info.name, info.collective), info.id);
    EXPECT_EQ(IsNative(info.id), info.native()) << info.name;
    if (info.native()) {
      // native:<the library's own name>, known to Open MPI or MPICH.
      EXPECT_EQ(std::string(info.name).rfind("native:", 0), 0u) << info.name;
      EXPECT_NE(info.libraries & (kOpenMpi | kMpich), 0) << info.name;
      if (info.segment == 0) {
        EXPECT_EQ(FindNative(info.collective, info.library_name()), info.id);
      } else {
        // native:<name>_seg<k>k: the library's algorithm <name> with segments
        // of k KiB, which the library offers unsegmented under <name>.
        const std::optional<Algorithm> base = FindNative(info.collective, info.library_name());
        ASSERT_TRUE(base.has_value()) << info.name;
        EXPECT_EQ(std::string(info.name),
                  std::string(InfoOf(*base).name) + "_seg" +
                      std::to_string(info.segment / 1024) + "k");
        EXPECT_EQ(info.segment % 1024, 0u) << info.name;
        EXPECT_EQ(info.libraries, InfoOf(*base).libraries & kOpenMpi) << info.name;
      }
    } else if (info.id != Algorithm::kDefault) {
      // Contract names start with the collective they implement.
      std::string prefix(InfoOf(info.collective).name);
      prefix.erase(std::remove(prefix.begin(), prefix.end(), '_'), prefix.end());
      EXPECT_EQ(std::string(info.name).rfind(prefix + "_as_", 0), 0u) << info.name;
    }
  }
  for (int c = 0; c < kNumCollectives; ++c) {
    const CollectiveInfo& info = InfoOf(static_cast<Collective>(c));
    EXPECT_EQ(IndexOf(info.id), c);
    EXPECT_EQ(ParseCollective(info.name), info.id);
    EXPECT_TRUE(Implements(Algorithm::kDefault, info.id));
  }
  EXPECT_FALSE(IsAlgorithmName("Default"));
  // The same native name is a different algorithm for each collective.
  EXPECT_NE(ParseAlgorithm("native:ring", Collective::kAllreduce),
            ParseAlgorithm("native:ring", Collective::kAllgather));
  EXPECT_FALSE(ParseAlgorithm("native:chain", Collective::kAllreduce).has_value());
  EXPECT_TRUE(ParseAlgorithm("native:chain", Collective::kBcast).has_value());
  EXPECT_FALSE(ParseCollective("MPI_Allreduce").has_value());
  EXPECT_FALSE(Implements(Algorithm::kGatherAsGatherv, Collective::kScatter));
}

TEST(Quirks, HanGatherDefectCoversTheFourOneReleasesBeforeTheFix) {
  EXPECT_TRUE(HanGatherDefect("4.1.4"));
  EXPECT_TRUE(HanGatherDefect("4.1.0"));
  EXPECT_TRUE(HanGatherDefect("4.1.5"));
  EXPECT_FALSE(HanGatherDefect("4.1.6"));
  EXPECT_FALSE(HanGatherDefect("4.0.7"));  // no coll/han
  EXPECT_FALSE(HanGatherDefect("5.0.3"));
  EXPECT_FALSE(HanGatherDefect(""));
}

TEST(Quirks, RowsNameKnownAlgorithmsAndFormsApplyByVersion) {
  for (const Quirk* q = QuirksBegin(); q != QuirksEnd(); ++q) {
    // Every row names an algorithm the catalogue has for that library.
    const std::optional<Algorithm> a = FindNative(q->collective, q->algorithm);
    ASSERT_TRUE(a.has_value()) << q->algorithm;
    EXPECT_NE(InfoOf(*a).libraries & q->library, 0) << q->algorithm;
    EXPECT_NE(q->forms, 0) << q->algorithm;
    EXPECT_FALSE(q->evidence.empty()) << q->algorithm;
    EXPECT_EQ(QuirkFormsOf(*a, q->library, q->seen_in) & q->forms, q->forms);
  }
  const Algorithm nb = *FindNative(Collective::kAlltoallw, "nb");
  EXPECT_EQ(QuirkFormsOf(nb, kMpich, "4.0.2"), kFormInPlace);
  EXPECT_EQ(QuirkFormsOf(nb, kMpich, ""), kFormInPlace);  // unknown version: holds
  EXPECT_EQ(QuirkFormsOf(nb, kOpenMpi, "4.1.4"), 0);      // another library's
  EXPECT_EQ(QuirkFormsOf(Algorithm::kDefault, kMpich, "4.0.2"), 0);
  // A segmented variant has its algorithm's rows.
  const std::optional<Algorithm> seg =
      ParseAlgorithm("native:segmented_ring_seg16k", Collective::kAllreduce);
  ASSERT_TRUE(seg.has_value());
  EXPECT_EQ(QuirkFormsOf(*seg, kOpenMpi, "4.1.4"), kFormNonCommutative | kFormShiftedType);
  // fixed_in: the versions before it only.
  const Quirk fixed{kMpich, "4.0.2", "4.1", Collective::kAlltoallw, "nb", kFormInPlace, "x"};
  EXPECT_TRUE(QuirkApplies(fixed, "4.0.2"));
  EXPECT_TRUE(QuirkApplies(fixed, "4.0.10"));
  EXPECT_FALSE(QuirkApplies(fixed, "4.1"));
  EXPECT_FALSE(QuirkApplies(fixed, "4.1.1rc2"));
  EXPECT_TRUE(QuirkApplies(fixed, ""));
  EXPECT_LT(CompareVersions("4.0.2", "4.0.10"), 0);
  EXPECT_EQ(CompareVersions("4.1", "4.1.0"), 0);
  EXPECT_EQ(QuirkFormNames(kFormInPlace | kFormGappedType), "in place, a datatype with gaps");
  EXPECT_EQ(QuirkFormNames(kFormMixedTypes), "a datatype mixing basic types");
  EXPECT_EQ(QuirkFormNames(kFormNonCommutative | kFormShiftedType),
            "a non-commutative operation, a datatype whose data does not start at its origin");
}

JobContext LayoutOf(std::vector<int> node_of) {
  JobContext c;
  DescribeLayout(node_of, &c);
  return c;
}

TEST(Layout, PlacementAndNodeSizesFromWhereEachRankIs) {
  const JobContext block = LayoutOf({0, 0, 1, 1});
  EXPECT_EQ(std::tie(block.comm_size, block.nodes, block.ppn), std::make_tuple(4, 2, 2));
  EXPECT_EQ(block.placement, "block");
  EXPECT_EQ(block.node_sizes, "");
  EXPECT_EQ(LayoutText(block), "2 x 2");
  const JobContext rr = LayoutOf({0, 1, 0, 1});
  EXPECT_EQ(rr.placement, "round_robin");
  EXPECT_EQ(LayoutText(rr), "2 x 2, round robin");
  const JobContext uneven = LayoutOf({0, 0, 0, 1});
  EXPECT_EQ(uneven.ppn, 3);
  EXPECT_EQ(uneven.node_sizes, "3+1");
  EXPECT_EQ(LayoutText(uneven), "3+1 on 2 nodes");
  const JobContext scattered = LayoutOf({0, 1, 1, 0});
  EXPECT_EQ(scattered.placement, "scattered");
  const JobContext repeats = LayoutOf({0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3});
  EXPECT_EQ(repeats.node_sizes, "4*3+2");
  // One node, and one process per node, are both placed by blocks.
  EXPECT_EQ(LayoutOf({0, 0, 0}).placement, "block");
  EXPECT_EQ(LayoutOf({0, 1, 2}).placement, "block");
  for (const JobContext& c : {block, rr, uneven, scattered, repeats}) {
    EXPECT_EQ(LayoutError(c), "") << LayoutText(c);
  }
}

TEST(Layout, InconsistentLayoutsAreNamed) {
  JobContext c = LayoutOf({0, 0, 0, 1});
  c.placement = "diagonal";
  EXPECT_NE(LayoutError(c).find("placement must be"), std::string::npos);
  c = LayoutOf({0, 0, 0, 1});
  for (const auto& [sizes, message] : std::vector<std::pair<std::string, std::string>>{
           {"3+2", "adds up to 5"},
           {"1+3", "largest first"},
           {"3", "names one size"},
           {"3*1+1*1", ""},
           {"3+1+", "not like"},
           {"a+b", "not like"}}) {
    c.node_sizes = sizes;
    const std::string error = LayoutError(c);
    if (message.empty()) {
      EXPECT_EQ(error, "") << sizes;
    } else {
      EXPECT_NE(error.find(message), std::string::npos) << sizes << ": " << error;
    }
  }
}

TEST(LibraryId, KnownLibraries) {
  LibraryId ompi = ParseLibraryVersion(
      "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: "
      "v4.1.4, May 26, 2022");
  EXPECT_EQ(ompi.name, "Open MPI");
  EXPECT_EQ(ompi.version, "4.1.4");
  LibraryId mpich = ParseLibraryVersion(
      "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022");
  EXPECT_EQ(mpich.name, "MPICH");
  EXPECT_EQ(mpich.version, "4.0.2");
  LibraryId intel =
      ParseLibraryVersion("Intel(R) MPI Library 2021.10 for Linux* OS\n");
  EXPECT_EQ(intel.name, "Intel MPI");
  EXPECT_EQ(intel.version, "2021.10");
  LibraryId mvapich = ParseLibraryVersion("MVAPICH2 Version      :\t2.3.7\n");
  EXPECT_EQ(mvapich.name, "MVAPICH2");
  EXPECT_EQ(mvapich.version, "2.3.7");
}

TEST(LibraryId, UnknownLibraryIsItsFirstPrintableLine) {
  LibraryId x = ParseLibraryVersion("Acme\x01MPI 9   \nsecond line");
  EXPECT_EQ(x.name, "Acme MPI 9");
  EXPECT_EQ(x.version, "");
  EXPECT_EQ(ParseLibraryVersion(std::string(200, 'z')).name.size(), 64u);
}

TEST(Stats, MedianAndSummary) {
  EXPECT_DOUBLE_EQ(Median({}), 0);
  EXPECT_DOUBLE_EQ(Median({3}), 3);
  EXPECT_DOUBLE_EQ(Median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  Summary s = Summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.n, 8);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_NEAR(s.stddev, 2.138, 1e-3);  // sample standard deviation
}

}  // namespace
}  // namespace colltune

namespace colltune {
namespace {

TEST(MannWhitney, ExactSmallSamples) {
  // Complete separation of 5 vs 5: the exact one-sided p is 1 / C(10,5).
  EXPECT_NEAR(MannWhitneyLess({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 1.0 / 252, 1e-12);
  // And the other way round it is certain.
  EXPECT_NEAR(MannWhitneyLess({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 1.0, 1e-12);
  // 3 vs 3 separated: 1 / C(6,3) = 0.05, just at the 95% level.
  EXPECT_NEAR(MannWhitneyLess({1, 2, 3}, {4, 5, 6}), 0.05, 1e-12);
  // One inversion among 4 vs 4: U = 15 of 16; P(U >= 15) = 2 / 70.
  EXPECT_NEAR(MannWhitneyLess({1, 2, 3, 5}, {4, 6, 7, 8}), 2.0 / 70, 1e-12);
  EXPECT_EQ(MannWhitneyLess({}, {1, 2}), 1.0);
}

TEST(MannWhitney, NormalApproximationWithTies) {
  // By hand: pooled ranks give rank-sum(y) = 5.5 + 2*8.5 + 2*10.5 + 12 =
  // 55.5, so U = 55.5 - 21 = 34.5 against a mean of 18; ties (2,3,2,2 equal
  // values) give sum(t^3 - t) = 78 and variance 36/12 * (13 - 78/132) =
  // 37.227; z = (34.5 - 18 - 0.5) / 6.1014 = 2.6224; p = 1 - Phi(z) = 0.004366.
  EXPECT_NEAR(MannWhitneyLess({1, 2, 2, 3, 3, 3}, {3, 4, 4, 5, 5, 6}), 0.004366,
              2e-6);
  // Identical samples: no evidence either way.
  EXPECT_GT(MannWhitneyLess({1, 1, 1, 1}, {1, 1, 1, 1}), 0.5);
}

TEST(MannWhitney, LargeSamplesSeparateAndOverlap) {
  std::vector<double> a, b;
  for (int i = 0; i < 100; ++i) {
    a.push_back(1.0 + 0.01 * i);
    b.push_back(1.5 + 0.01 * i);
  }
  EXPECT_LT(MannWhitneyLess(a, b), 1e-10);
  EXPECT_GT(MannWhitneyLess(a, a), 0.45);
}

TEST(Stats, UpperQuartileIsTheMedianOfTheSlowerHalf) {
  EXPECT_EQ(UpperQuartile({}), 0);
  EXPECT_EQ(UpperQuartile({4}), 4);
  EXPECT_EQ(UpperQuartile({8, 1, 5, 3}), 6.5);        // slower half 5, 8
  EXPECT_EQ(UpperQuartile({9, 1, 5, 3, 7}), 7);       // 5, 7, 9 (the median included)
  // Two modes, the slow one a third of the calls: the median is in the fast
  // mode, the upper quartile in the slow one.
  std::vector<double> bimodal(200, 3.7);
  for (size_t i = 0; i < bimodal.size(); i += 3) bimodal[i] = 5.6;
  EXPECT_EQ(Median(bimodal), 3.7);
  EXPECT_EQ(UpperQuartile(bimodal), 5.6);
}

TEST(Stats, LowerQuartileIsTheMedianOfTheFasterHalf) {
  EXPECT_EQ(LowerQuartile({}), 0);
  EXPECT_EQ(LowerQuartile({4}), 4);
  EXPECT_EQ(LowerQuartile({8, 1, 5, 3}), 2);         // faster half 1, 3
  EXPECT_EQ(LowerQuartile({9, 1, 5, 3, 7}), 3);      // 1, 3, 5 (the median included)
  // Two modes, the fast one a third of the calls: the median is in the slow
  // mode, the lower quartile in the fast one.
  std::vector<double> bimodal(200, 5.6);
  for (size_t i = 0; i < bimodal.size(); i += 3) bimodal[i] = 3.7;
  EXPECT_EQ(Median(bimodal), 5.6);
  EXPECT_EQ(LowerQuartile(bimodal), 3.7);
}

TEST(Stats, RelativeStandardError) {
  EXPECT_TRUE(std::isinf(RelativeStandardError({1})));
  // mean 5, sample stddev 2.138, n 8: 2.138 / sqrt(8) / 5
  EXPECT_NEAR(RelativeStandardError({2, 4, 4, 4, 5, 5, 7, 9}), 0.1512, 1e-3);
}

}  // namespace

TEST(Regime, NamesRoundTripAndOlderPointsAreSynchronized) {
  for (Regime r : kAllRegimes) EXPECT_EQ(ParseRegime(NameOf(r)), r);
  EXPECT_EQ(ParseRegime(""), Regime::kSync) << "what older benchmarks send";
  EXPECT_FALSE(ParseRegime("Loop"));
  EXPECT_FALSE(ParseRegime("steady"));
  RegimeSet set = 0;
  ASSERT_TRUE(ParseRegimeSet("sync,imbalance", &set));
  EXPECT_EQ(set, Bit(Regime::kSync) | Bit(Regime::kImbalance));
  EXPECT_EQ(FormatRegimeSet(set), "sync,imbalance");
  ASSERT_TRUE(ParseRegimeSet("", &set));
  EXPECT_EQ(set, kSyncOnly);
  EXPECT_FALSE(ParseRegimeSet("loop,loop", &set));
  EXPECT_FALSE(ParseRegimeSet("loop,", &set));
  EXPECT_FALSE(ParseRegimeSet("bogus", &set));
}

TEST(Regime, EvidenceRoundTripsAndMalformedTextIsRefused) {
  const std::vector<RegimeEvidence> e = {{Regime::kSync, 1.25, 0.004, true},
                                         {Regime::kLoop, 0.97, 0.8, false}};
  const std::string text = FormatRegimeEvidence(e);
  EXPECT_EQ(text, "sync:1.25:0.004:1,loop:0.97:0.8:0");
  std::vector<RegimeEvidence> back;
  ASSERT_TRUE(ParseRegimeEvidence(text, &back));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].regime, Regime::kLoop);
  EXPECT_DOUBLE_EQ(back[1].speedup, 0.97);
  EXPECT_FALSE(back[1].won);
  EXPECT_TRUE(ParseRegimeEvidence("", &back));
  EXPECT_TRUE(back.empty());
  for (const char* bad : {"sync:1:1", "sync:1:1:2", "warp:1:1:1", "sync:x:1:1",
                          "sync:1:1:1,sync:1:1:1", "sync:1:1:1,", ":1:1:1"}) {
    EXPECT_FALSE(ParseRegimeEvidence(bad, &back)) << bad;
  }
}

}  // namespace colltune

TEST(Histogram, BinsCoverTimesInOrderAndQuantilesInterpolate) {
  namespace h = colltune::histogram;
  int previous = -1;
  for (uint64_t ns = 0; ns < (uint64_t{1} << 37); ns = ns < 64 ? ns + 1 : ns + ns / 7) {
    const int b = h::BinOf(ns);
    ASSERT_GE(b, previous) << ns;
    ASSERT_LT(b, h::kNumBins);
    if (ns < (uint64_t{1} << 37)) {
      EXPECT_LE(h::BinLow(b), static_cast<double>(ns)) << ns;
      EXPECT_GT(h::BinLow(b + 1), static_cast<double>(ns)) << ns;
    }
    previous = b;
  }
  EXPECT_EQ(h::BinOf(~uint64_t{0}), h::kNumBins - 1);
  // A bin is at most 12.5% of its lower bound wide from 8 ns up.
  for (int b = 8; b < h::kNumBins; ++b) {
    EXPECT_LE(h::BinLow(b + 1) - h::BinLow(b), 0.125 * h::BinLow(b) + 1e-9) << b;
  }
  // 100 calls spread evenly over one bin: the median is its middle.
  const int b = h::BinOf(50000);
  const uint64_t counts[1] = {100};
  EXPECT_NEAR(h::Quantile(counts, 1, b, 0.5), (h::BinLow(b) + h::BinLow(b + 1)) / 2, 1e-6);
  const uint64_t two[3] = {10, 0, 30};
  EXPECT_GE(h::Quantile(two, 3, b, 0.5), h::BinLow(b + 2));
  EXPECT_EQ(h::Quantile(two, 0, b, 0.5), 0);
}

TEST(Histogram, SizeBuckets) {
  namespace h = colltune::histogram;
  EXPECT_EQ(h::BucketOf(0), 0);
  EXPECT_EQ(h::BucketOf(1), 1);
  EXPECT_EQ(h::BucketOf(1023), 10);
  EXPECT_EQ(h::BucketOf(1024), 11);
  for (int b = 1; b < 40; ++b) {
    EXPECT_EQ(h::BucketOf(h::BucketMin(b)), b);
    EXPECT_EQ(h::BucketOf(h::BucketMax(b)), b);
    EXPECT_EQ(h::BucketMax(b) + 1, h::BucketMin(b + 1));
  }
}

TEST(ReportFormat, RoundTripsAndRefusesWhatIsMalformed) {
  colltune::Report r = colltune::test_data::FinalReport(
      "slurm:42", "node1-123-1700000000", colltune::test_data::OpenMpiJob(4, 1, 4), 7);
  const colltune::ReportTiming t = colltune::test_data::ReduceBcastTiming(
      /*comm_size=*/4, /*profile_id=*/3, /*bucket=*/17, /*calls=*/1600, /*timed=*/100,
      /*explored=*/0, /*sum_ns=*/5000000, /*first_bin=*/120, /*bins=*/{40, 0, 60});
  r.timings.push_back(t);
  r.counts.push_back({colltune::NonblockingId(colltune::Collective::kAllreduce), 6, 28});
  r.counts.push_back({colltune::NeighborId(colltune::Neighbor::kAlltoall,
                                           colltune::NeighborForm::kPersistent),
                      4, 3});
  const std::string text = colltune::FormatReport(r);
  colltune::Report back;
  std::string error;
  ASSERT_TRUE(colltune::ParseReport(text, &back, &error)) << error;
  EXPECT_EQ(colltune::FormatReport(back), text);
  EXPECT_EQ(back.context.library, "Open MPI") << "names may hold spaces";
  ASSERT_EQ(back.timings.size(), 1u);
  EXPECT_EQ(back.timings[0].bins, t.bins);
  EXPECT_NE(text.find("counted iallreduce 6 28\n"), std::string::npos) << text;
  EXPECT_NE(text.find("counted neighbor_alltoall_init 4 3\n"), std::string::npos) << text;
  ASSERT_EQ(back.counts.size(), 2u);
  EXPECT_EQ(back.counts[1].calls, 3u);

  auto refused = [&](const std::string& bad, const std::string& why) {
    colltune::Report out;
    std::string e;
    EXPECT_FALSE(colltune::ParseReport(bad, &out, &e)) << bad;
    EXPECT_NE(e.find(why), std::string::npos) << "wanted '" << why << "', got: " << e;
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string copy = text;
    const size_t at = copy.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return copy.replace(at, from.size(), to);
  };
  refused(text.substr(0, text.size() - 4), "cut short");
  refused("", "empty");
  refused("colltune-report 9\n", "not a colltune report");
  refused(replaced("allreduce_as_reduce_bcast", "allreduce_fast"), "unknown algorithm");
  refused(replaced(" 3 40 0 60", " 4 40 0 60"), "malformed timing");
  refused(replaced(" 120 3 ", " 279 3 "), "malformed timing");
  refused(replaced("comm_size 4", "comm_size 0"), "comm_size");
  refused(replaced("final 1", "final yes"), "final");
  refused(replaced("job slurm:42", "job \x01"), "printable");
  refused(replaced("end\n", "end\nmore\n"), "after 'end'");
  refused(replaced("ranks 4", "bogus 4"), "unknown line");
  refused(replaced(" 40 0 60", " 40 0 -60"), "bin count");
  refused(replaced("counted iallreduce", "counted allreduce"), "unknown counted collective");
  refused(replaced("counted iallreduce 6 28", "counted iallreduce 6 0"), "malformed counted");
  refused(replaced("counted iallreduce 6 28", "counted iallreduce 42 1"), "malformed counted");
  refused(replaced("counted iallreduce 6 28", "counted iallreduce 6"), "3 fields");
  refused(replaced("counted iallreduce 6 28\n", "counted iallreduce 6 28\ncounted iallreduce 6 1\n"),
          "repeats");
}
