#include "common/table.h"

#include <gtest/gtest.h>

namespace colltune {
namespace {

Table Parse(const std::string& text) {
  Table t;
  std::string error;
  EXPECT_TRUE(ParseTable(text, &t, &error)) << error;
  return t;
}

std::string ParseError(const std::string& text) {
  Table t;
  std::string error;
  EXPECT_FALSE(ParseTable(text, &t, &error)) << "accepted: " << text;
  return error;
}

TEST(TableText, ParsesSectionsRulesForceAndComments) {
  Table t = Parse(
      "# a comment\n"
      "colltune-table 1\n"
      "force bcast bcast_as_scatter_allgather  # trailing comment\n"
      "section 8 profile=3 version=7\n"
      "allreduce 1024 inf allreduce_as_reduce_bcast 1.5\n"
      "allreduce 0 1023 default\n"
      "section *\n"
      "gather 0 inf gather_as_gatherv\n");
  ASSERT_EQ(t.sections.size(), 2u);
  EXPECT_EQ(t.sections[0].comm_size, 0u) << "'*' sorts first";
  EXPECT_EQ(t.sections[1].comm_size, 8u);
  EXPECT_EQ(t.sections[1].profile_id, 3);
  EXPECT_EQ(t.sections[1].version, 7);
  ASSERT_EQ(t.sections[1].rules.size(), 2u);
  EXPECT_EQ(t.sections[1].rules[0].min_bytes, 0u) << "rules sorted by size";
  EXPECT_EQ(t.sections[1].rules[1].algorithm, Algorithm::kAllreduceAsReduceBcast);
  EXPECT_EQ(t.sections[1].rules[1].max_bytes, kNoUpperBound);
  EXPECT_DOUBLE_EQ(t.sections[1].rules[1].speedup, 1.5);
  EXPECT_EQ(t.forced[IndexOf(Collective::kBcast)],
            Algorithm::kBcastAsScatterAllgather);
  EXPECT_FALSE(t.forced[IndexOf(Collective::kAllreduce)].has_value());
}

// A regime switch: parsed, written back, refused where it cannot apply.
TEST(TableText, RegimeSwitch) {
  Table t = Parse(
      "colltune-table 1\nsection *\n"
      "allgatherv 262144 inf default loop=allgatherv_as_gatherv_bcast\n"
      "bcast 0 4095 bcast_as_allgatherv 1.2 imbalance=bcast_as_scatter_allgather "
      "loop=default\n");
  ASSERT_EQ(t.sections[0].rules.size(), 2u);
  const Rule& a = t.sections[0].rules[0];
  EXPECT_EQ(a.collective, Collective::kAllgatherv);
  EXPECT_TRUE(a.Switches());
  EXPECT_EQ(a.loop, Algorithm::kAllgathervAsGathervBcast);
  EXPECT_FALSE(a.imbalance.has_value());
  const Rule& b = t.sections[0].rules[1];
  EXPECT_DOUBLE_EQ(b.speedup, 1.2);
  EXPECT_EQ(b.loop, Algorithm::kDefault) << "a switch back to default is a switch";
  EXPECT_EQ(b.imbalance, Algorithm::kBcastAsScatterAllgather);
  const Table again = Parse(FormatTable(t));
  EXPECT_EQ(again.sections[0].rules[1].imbalance, Algorithm::kBcastAsScatterAllgather)
      << FormatTable(t);
  EXPECT_EQ(again.sections[0].rules[0].loop, Algorithm::kAllgathervAsGathervBcast);
  EXPECT_NE(FormatTable(t).find("loop=allgatherv_as_gatherv_bcast"), std::string::npos);
  for (const char* bad : {"bcast 0 inf default loop=allreduce_as_reduce_bcast\n",
                          "bcast 0 inf default loop=\n",
                          "bcast 0 inf default sideways=default\n",
                          "bcast 0 inf default loop=default loop=default\n",
                          "bcast 0 inf default 1.1 2.2 loop=default\n",
                          "bcast@tiled 0 inf default loop=default\n"}) {
    const std::string error = ParseError(std::string("colltune-table 1\nsection *\n") + bad);
    EXPECT_NE(error.find("line 3"), std::string::npos) << bad << ": " << error;
  }
}

TEST(TableText, ReproducibleLine) {
  EXPECT_FALSE(Parse("colltune-table 1\nsection *\n").reproducible);
  Table t = Parse("colltune-table 1\nreproducible\nsection *\n");
  EXPECT_TRUE(t.reproducible);
  EXPECT_TRUE(Parse(FormatTable(t)).reproducible) << FormatTable(t);
  EXPECT_NE(ParseError("colltune-table 1\nreproducible yes\n").find("line 2"),
            std::string::npos);
}

TEST(TableText, LibraryVersionLine) {
  EXPECT_EQ(Parse("colltune-table 1\nsection *\n").library_version, "");
  Table t = Parse("colltune-table 1\nlibrary MPICH\nlibrary_version 4.0.2\nsection *\n");
  EXPECT_EQ(t.library_version, "4.0.2");
  EXPECT_EQ(Parse(FormatTable(t)).library_version, "4.0.2") << FormatTable(t);
  EXPECT_NE(ParseError("colltune-table 1\nlibrary_version 4.0.2 extra\n").find("line 2"),
            std::string::npos);
  EXPECT_NE(ParseError("colltune-table 1\nlibrary_version 1\nlibrary_version 2\n")
                .find("line 3"),
            std::string::npos);
}

TEST(TableText, NativeAlgorithmsAndTheirLibrary) {
  Table t;
  std::string error;
  ASSERT_TRUE(ParseTable("colltune-table 1\n"
                         "library Open MPI\n"
                         "force bcast native:chain\n"
                         "section 4\n"
                         "allreduce 0 1023 native:recursive_doubling\n"
                         "allreduce 1024 inf native:ring 1.8\n"
                         "allgather 0 inf native:ring\n",
                         &t, &error))
      << error;
  EXPECT_EQ(t.library, "Open MPI");
  EXPECT_EQ(t.forced[IndexOf(Collective::kBcast)],
            ParseAlgorithm("native:chain", Collective::kBcast));
  ASSERT_EQ(t.sections.size(), 1u);
  ASSERT_EQ(t.sections[0].rules.size(), 3u);
  // Same name, different collectives: different algorithms.
  EXPECT_EQ(t.sections[0].rules[0].collective, Collective::kAllgather);
  EXPECT_EQ(t.sections[0].rules[0].algorithm,
            ParseAlgorithm("native:ring", Collective::kAllgather));
  EXPECT_EQ(t.sections[0].rules[2].algorithm,
            ParseAlgorithm("native:ring", Collective::kAllreduce));
  EXPECT_NE(t.sections[0].rules[0].algorithm, t.sections[0].rules[2].algorithm);
  Table again;
  ASSERT_TRUE(ParseTable(FormatTable(t), &again, &error)) << error;
  EXPECT_EQ(FormatTable(again), FormatTable(t));
  EXPECT_EQ(again.library, "Open MPI");
}

TEST(TableText, UnknownNativeNamesRunTheDefaultAndAreNoted) {
  // A table made for another library version may name algorithms this
  // colltune does not know: those ranges run the default, the rest applies.
  Table t;
  std::string error;
  ASSERT_TRUE(ParseTable("colltune-table 1\n"
                         "force scan native:future_scan\n"
                         "section 4\n"
                         "allreduce 0 1023 native:not_yet_invented\n"
                         "allreduce 1024 inf allreduce_as_reduce_bcast\n",
                         &t, &error))
      << error;
  EXPECT_FALSE(t.forced[IndexOf(Collective::kScan)].has_value());
  ASSERT_EQ(t.sections[0].rules.size(), 1u);
  EXPECT_EQ(t.sections[0].rules[0].algorithm, Algorithm::kAllreduceAsReduceBcast);
  ASSERT_EQ(t.notes.size(), 2u);
  EXPECT_NE(t.notes[0].find("line 2"), std::string::npos) << t.notes[0];
  EXPECT_NE(t.notes[1].find("native:not_yet_invented"), std::string::npos) << t.notes[1];
  // A known native name of another collective is an error, as for mock-ups.
  EXPECT_FALSE(ParseTable("colltune-table 1\nsection 4\nallreduce 0 inf native:chain\n",
                          &t, &error));
  EXPECT_NE(error.find("does not implement"), std::string::npos) << error;
  // Not a name at all.
  EXPECT_FALSE(ParseTable("colltune-table 1\nsection 4\nallreduce 0 inf native:\n",
                          &t, &error));
  EXPECT_FALSE(ParseTable("colltune-table 1\nlibrary\n", &t, &error));
}

TEST(TableText, FormatRoundTrips) {
  Table t = Parse(
      "colltune-table 1\nforce gather gather_as_gatherv\n"
      "section 4 profile=1 version=2\n"
      "allreduce 0 8191 default\n"
      "allreduce 8192 262143 allreduce_as_reduce_bcast 1.449\n"
      "allreduce 262144 inf default\n");
  Table again = Parse(FormatTable(t));
  EXPECT_EQ(FormatTable(again), FormatTable(t));
  ASSERT_EQ(again.sections.size(), 1u);
  EXPECT_EQ(again.sections[0].rules.size(), 3u);
  EXPECT_EQ(again.forced[IndexOf(Collective::kGather)], Algorithm::kGatherAsGatherv);
}

TEST(TableText, RejectsMalformedInputWithTheLine) {
  EXPECT_NE(ParseError("").find("empty"), std::string::npos);
  EXPECT_NE(ParseError("section 4\n").find("line 1"), std::string::npos);
  EXPECT_NE(ParseError("colltune-table 2\n").find("version"), std::string::npos);
  EXPECT_NE(ParseError("colltune-table 1\nallreduce 0 inf default\n")
                .find("before any 'section'"),
            std::string::npos);
  const std::string unknown =
      ParseError("colltune-table 1\nsection 4\nallreduce 0 inf fastest_ever\n");
  EXPECT_NE(unknown.find("line 3"), std::string::npos);
  EXPECT_NE(unknown.find("unknown algorithm 'fastest_ever'"), std::string::npos);
  EXPECT_NE(ParseError("colltune-table 1\nsection 4\nbcast 0 inf gather_as_gatherv\n")
                .find("does not implement"),
            std::string::npos);
  EXPECT_NE(ParseError("colltune-table 1\nsection 4\nbcast -1 inf default\n")
                .find("min_bytes"),
            std::string::npos);
  EXPECT_NE(ParseError("colltune-table 1\nsection 4\nbcast 9 3 default\n")
                .find("smaller"),
            std::string::npos);
  EXPECT_NE(ParseError("colltune-table 1\nsection 0\n").find("positive"),
            std::string::npos);
  EXPECT_NE(ParseError("colltune-table 1\nsection 4\nsection 4\n").find("twice"),
            std::string::npos);
  EXPECT_NE(ParseError("colltune-table 1\nsection 4\nbcast 0 100 default\n"
                       "bcast 50 inf bcast_as_scatter_allgather\n")
                .find("overlap"),
            std::string::npos);
  EXPECT_NE(ParseError("colltune-table 1\nsection 4\nbcast 0 inf default nan\n")
                .find("speedup"),
            std::string::npos);
  EXPECT_NE(ParseError(std::string("colltune-table 1\nsec\0tion 4\n", 26))
                .find("NUL"),
            std::string::npos);
}

TEST(TableText, RejectsOversizeTables) {
  std::string big = "colltune-table 1\n";
  big.append(kMaxTableTextBytes, '#');
  EXPECT_NE(ParseError(big).find("limit"), std::string::npos);
}

TEST(TableText, ParsingLeavesTheOutputUntouchedOnError) {
  Table t = Parse("colltune-table 1\nsection 2\nbcast 0 inf default\n");
  std::string error;
  EXPECT_FALSE(ParseTable("colltune-table 1\nsection x\n", &t, &error));
  ASSERT_EQ(t.sections.size(), 1u);
  EXPECT_EQ(t.sections[0].comm_size, 2u);
}

TEST(TableText, LayoutRulesAreKeptApartAndRoundTrip) {
  const std::string text =
      "colltune-table 1\n"
      "section 4\n"
      "bcast 0 inf bcast_as_scatter_allgather\n"
      "bcast@struct 0 1048575 bcast_as_packed 1.6\n"
      "bcast@tiled/8B 0 inf bcast_as_packed\n"
      "bcast@tiled 0 inf default\n"
      "allgather@nested/1KiB 4096 inf allgather_as_packed\n";
  Table t = Parse(text);
  ASSERT_EQ(t.sections.size(), 1u);
  const Section& s = t.sections[0];
  ASSERT_EQ(s.rules.size(), 1u) << "plain rules hold no layout rule";
  ASSERT_EQ(s.layout_rules.size(), 4u);
  EXPECT_EQ(t.RuleCount(), 5u);
  // Sorted by collective (allgather first), then layout, then size.
  EXPECT_EQ(s.layout_rules[0].collective, Collective::kAllgather);
  EXPECT_EQ(s.layout_rules[0].layout.layout, LayoutClass::kNested);
  EXPECT_EQ(s.layout_rules[0].layout.block_log2, 10);
  EXPECT_EQ(s.layout_rules[1].layout.layout, LayoutClass::kTiled);
  EXPECT_EQ(s.layout_rules[1].layout.block_log2, -1);
  EXPECT_EQ(s.layout_rules[2].layout.block_log2, 3);
  EXPECT_EQ(s.layout_rules[3].layout.layout, LayoutClass::kStruct);
  EXPECT_EQ(s.layout_rules[3].algorithm, Algorithm::kBcastAsPacked);
  EXPECT_DOUBLE_EQ(s.layout_rules[3].speedup, 1.6);
  const std::string formatted = FormatTable(t);
  EXPECT_NE(formatted.find("bcast@tiled/8B 0 inf bcast_as_packed\n"), std::string::npos)
      << formatted;
  EXPECT_NE(formatted.find("allgather@nested/1KiB 4096 inf allgather_as_packed\n"),
            std::string::npos)
      << formatted;
  EXPECT_EQ(FormatTable(Parse(formatted)), formatted);
}

TEST(TableText, LayoutRulesNameOnlyThePackedFormAndKnownLayouts) {
  const std::string head = "colltune-table 1\nsection *\n";
  EXPECT_NE(ParseError(head + "bcast@struct 0 inf bcast_as_scatter_allgather\n")
                .find("may name default or bcast_as_packed"),
            std::string::npos);
  EXPECT_NE(ParseError(head + "bcast@struct 0 inf allgather_as_packed\n")
                .find("does not implement"),
            std::string::npos);
  for (const char* bad : {"bcast@contiguous", "bcast@other", "bcast@stripes", "bcast@tiled/7B",
                          "bcast@tiled/8", "bcast@", "bcast@tiled/0B"}) {
    EXPECT_NE(ParseError(head + bad + " 0 inf bcast_as_packed\n").find("line 3: layout"),
              std::string::npos)
        << bad;
  }
  // Overlap is per (collective, layout): the same range for two layouts is fine.
  Parse(head + "bcast@struct 0 inf bcast_as_packed\nbcast@tiled 0 inf bcast_as_packed\n");
  EXPECT_NE(ParseError(head + "bcast@struct 0 100 bcast_as_packed\n"
                              "bcast@struct 50 inf default\n")
                .find("bcast@struct ranges [0, 100] and [50, ...] overlap"),
            std::string::npos);
}

TEST(SelectSection, ExactThenNearestOnLogScaleWithinFactorTwo) {
  Table t = Parse("colltune-table 1\nsection 4\nsection 16\nsection 24\n");
  EXPECT_EQ(SelectSection(t, 4)->comm_size, 4u);
  EXPECT_EQ(SelectSection(t, 7)->comm_size, 4u);    // 7/4 < 16/7
  EXPECT_EQ(SelectSection(t, 8)->comm_size, 4u);    // tie 8/4 = 16/8: smaller
  EXPECT_EQ(SelectSection(t, 9)->comm_size, 16u);   // 16/9 < 9/4 (out anyway)
  EXPECT_EQ(SelectSection(t, 20)->comm_size, 24u);  // 24/20 < 20/16
  EXPECT_EQ(SelectSection(t, 2)->comm_size, 4u);    // factor 2 exactly
  EXPECT_EQ(SelectSection(t, 1), nullptr);          // 4/1 beyond factor 2
  EXPECT_EQ(SelectSection(t, 49), nullptr);         // 49/24 beyond factor 2
}

TEST(SelectSection, WildcardIsTheLastResort) {
  Table t = Parse("colltune-table 1\nsection *\nsection 64\n");
  EXPECT_EQ(SelectSection(t, 64)->comm_size, 64u);
  EXPECT_EQ(SelectSection(t, 3)->comm_size, 0u);
  EXPECT_EQ(SelectSection(Table(), 3), nullptr);
}

TEST(TableText, WholeJobChoicesAreNotedAndNeverRun) {
  // coll/han is enabled for a whole job at launch: a line naming it (a
  // hand-written table, COLLTUNE_FORCE) leaves the default in place and says
  // why, instead of a rule the shim could never run.
  Table t;
  std::string error;
  ASSERT_TRUE(ParseTable("colltune-table 1\n"
                         "force bcast native:han\n"
                         "section 4\n"
                         "allreduce 0 1023 native:han\n"
                         "allreduce 1024 inf allreduce_as_reduce_bcast\n",
                         &t, &error))
      << error;
  EXPECT_FALSE(t.forced[IndexOf(Collective::kBcast)].has_value());
  ASSERT_EQ(t.sections[0].rules.size(), 1u);
  ASSERT_EQ(t.notes.size(), 2u);
  EXPECT_NE(t.notes[0].find("whole job at launch"), std::string::npos) << t.notes[0];
  EXPECT_NE(t.notes[1].find("line 4"), std::string::npos) << t.notes[1];
  std::array<std::optional<Algorithm>, kNumCollectives> forced{};
  std::vector<std::string> errors = ParseForce("reduce=native:han", &forced);
  EXPECT_FALSE(forced[IndexOf(Collective::kReduce)].has_value());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("coll_han_priority"), std::string::npos) << errors[0];
  // The catalogue knows it for the collectives coll/han implements only.
  EXPECT_TRUE(ParseAlgorithm("native:han", Collective::kAllreduce).has_value());
  EXPECT_FALSE(ParseAlgorithm("native:han", Collective::kAlltoall).has_value());
}

TEST(ParseForce, NativeNamesAreResolvedPerCollective) {
  std::array<std::optional<Algorithm>, kNumCollectives> forced{};
  std::vector<std::string> errors =
      ParseForce("allreduce=native:recursive_doubling,bcast=native:chain,"
                 "allreduce=native:chain,gather=native:rign",
                 &forced);
  EXPECT_EQ(forced[IndexOf(Collective::kAllreduce)],
            ParseAlgorithm("native:recursive_doubling", Collective::kAllreduce));
  EXPECT_EQ(forced[IndexOf(Collective::kBcast)],
            ParseAlgorithm("native:chain", Collective::kBcast));
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("does not implement"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("unknown algorithm 'native:rign'"), std::string::npos)
      << errors[1];
}

TEST(ParseForce, KeepsGoodPairsAndReportsEachBadOne) {
  std::array<std::optional<Algorithm>, kNumCollectives> forced{};
  std::vector<std::string> errors = ParseForce(
      "allreduce=allreduce_as_reduce_bcast, gather=default,foo=bar,"
      "bcast=fastest,scatter=gather_as_gatherv,nonsense,,",
      &forced);
  EXPECT_EQ(forced[IndexOf(Collective::kAllreduce)],
            Algorithm::kAllreduceAsReduceBcast);
  EXPECT_EQ(forced[IndexOf(Collective::kGather)], Algorithm::kDefault);
  EXPECT_FALSE(forced[IndexOf(Collective::kBcast)].has_value());
  EXPECT_FALSE(forced[IndexOf(Collective::kScatter)].has_value());
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_NE(errors[0].find("unknown collective 'foo'"), std::string::npos);
  EXPECT_NE(errors[1].find("unknown algorithm 'fastest'"), std::string::npos);
  EXPECT_NE(errors[2].find("does not implement"), std::string::npos);
  EXPECT_NE(errors[3].find("not of the form"), std::string::npos);
}

}  // namespace
}  // namespace colltune
