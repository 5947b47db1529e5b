// The shim's hand-written protobuf encoding of GetTable against
// libprotobuf's, both ways, and its refusal of malformed answers.
#include "common/table_wire.h"

#include <random>

#include <gtest/gtest.h>

#include <google/protobuf/util/message_differencer.h>

#include "client/client.h"
#include "common/report.h"
#include "common/table.h"
#include "proto/colltune.pb.h"
#include "tests/unit/test_data.h"

namespace colltune {
namespace {

TEST(TableWire, RequestParsesWithLibprotobuf) {
  wire::TableRequest r;
  r.context.cluster = "c1";
  r.context.library = "Open MPI";
  r.context.library_version = "4.1.4";
  r.context.comm_size = 1 << 20;
  r.context.nodes = 300;
  r.context.ppn = -1;  // int32 negatives travel as ten-byte varints
  r.decisions_only = true;
  v1::GetTableRequest parsed;
  ASSERT_TRUE(parsed.ParseFromString(wire::EncodeGetTableRequest(r)));
  EXPECT_EQ(parsed.context().cluster(), "c1");
  EXPECT_EQ(parsed.context().library(), "Open MPI");
  EXPECT_EQ(parsed.context().library_version(), "4.1.4");
  EXPECT_EQ(parsed.context().comm_size(), 1 << 20);
  EXPECT_EQ(parsed.context().nodes(), 300);
  EXPECT_EQ(parsed.context().ppn(), -1);
  EXPECT_TRUE(parsed.decisions_only());
}

TEST(TableWire, EmptyRequestEqualsLibprotobufs) {
  v1::GetTableRequest empty;
  empty.mutable_context();
  EXPECT_EQ(wire::EncodeGetTableRequest({}), empty.SerializeAsString());
}

v1::GetTableResponse SampleResponse() {
  v1::GetTableResponse response;
  v1::DecisionTable* t = response.mutable_table();
  t->mutable_context()->set_library("MPICH");
  t->mutable_context()->set_comm_size(4);
  t->set_reproducible(true);
  for (int size : {2, 4}) {
    v1::TableSection* s = t->add_sections();
    s->set_comm_size(size);
    s->set_profile_id(7);
    s->set_version(12345678901LL);
    s->set_created_at("2026-11-23T00:00:00Z");  // not read: skipped
    s->set_reason("campaign 'a'");
    v1::Rule* r = s->add_rules();
    r->set_collective("allreduce");
    r->set_min_bytes(0);
    r->set_max_bytes(1023);
    r->set_algorithm("allreduce_as_reduce_bcast");
    r->set_speedup(1.25);
    r->set_p_value(0.01);  // not read: skipped
    r->add_campaigns("a");
    r = s->add_rules();
    r->set_collective("bcast");
    r->set_min_bytes(1024);
    r->set_max_bytes(-1);
    r->set_algorithm("default");
  }
  return response;
}

// The shim's ReportJob bytes are what `colltune flush` sends for the same
// report (client::ReportToProto, libprotobuf), field for field.
TEST(TableWire, ReportRequestIsFlushsRequest) {
  Report r = test_data::FinalReport("slurm:4711", "host-123-1700000000",
                                     test_data::OpenMpiJob(8, 2, 4), 17);
  const ReportTiming a = test_data::ReduceBcastTiming(
      /*comm_size=*/8, /*profile_id=*/3, /*bucket=*/11, /*calls=*/123456789012ULL,
      /*timed=*/4000, /*explored=*/40, /*sum_ns=*/987654321, /*first_bin=*/70,
      /*bins=*/{1, 0, 300, 3699});
  ReportTiming b;  // zeros and the empty bucket: proto3 leaves defaults out
  b.comm_size = 4;
  b.collective = Collective::kBarrier;
  b.bins = {5};
  b.timed = 5;
  r.timings = {a, b};
  r.counts = {{0, 3, 99}, {1, 0, 1}};
  for (const bool final : {true, false}) {
    r.final = final;
    v1::ReportJobRequest parsed;
    ASSERT_TRUE(parsed.ParseFromString(wire::EncodeReportJobRequest(r)));
    const v1::ReportJobRequest want = client::ReportToProto(r);
    std::string diff;
    google::protobuf::util::MessageDifferencer d;
    d.ReportDifferencesToString(&diff);
    EXPECT_TRUE(d.Compare(want, parsed)) << diff;
    EXPECT_EQ(parsed.timings(0).bins_size(), 4);
  }
}

TEST(TableWire, DecodesLibprotobufsAnswer) {
  wire::TableMessage m;
  std::string error;
  ASSERT_TRUE(wire::DecodeGetTableResponse(SampleResponse().SerializeAsString(), &m, &error))
      << error;
  EXPECT_EQ(m.library, "MPICH");
  EXPECT_TRUE(m.reproducible);
  ASSERT_EQ(m.sections.size(), 2u);
  EXPECT_EQ(m.sections[1].comm_size, 4);
  EXPECT_EQ(m.sections[1].profile_id, 7);
  EXPECT_EQ(m.sections[1].version, 12345678901LL);
  ASSERT_EQ(m.sections[1].rules.size(), 2u);
  EXPECT_EQ(m.sections[1].rules[0].collective, "allreduce");
  EXPECT_EQ(m.sections[1].rules[0].max_bytes, 1023);
  EXPECT_EQ(m.sections[1].rules[0].algorithm, "allreduce_as_reduce_bcast");
  EXPECT_DOUBLE_EQ(m.sections[1].rules[0].speedup, 1.25);
  EXPECT_EQ(m.sections[1].rules[1].max_bytes, -1);
}

TEST(TableWire, TextParsesAsTheShimsTable) {
  wire::TableMessage m;
  std::string error, text;
  std::vector<std::string> warnings;
  ASSERT_TRUE(wire::DecodeGetTableResponse(SampleResponse().SerializeAsString(), &m, &error));
  ASSERT_TRUE(wire::TableTextFromMessage(m, &text, &warnings, &error)) << error;
  EXPECT_TRUE(warnings.empty());
  Table table;
  ASSERT_TRUE(ParseTable(text, &table, &error)) << error << "\n" << text;
  EXPECT_TRUE(table.reproducible);
  EXPECT_EQ(table.library, "MPICH");
  ASSERT_EQ(table.sections.size(), 2u);
  EXPECT_EQ(table.RuleCount(), 4u);
}

TEST(TableWire, UnknownAlgorithmIsDroppedWithAWarning) {
  v1::GetTableResponse response = SampleResponse();
  response.mutable_table()->mutable_sections(0)->mutable_rules(0)->set_algorithm(
      "allreduce_from_the_future");
  wire::TableMessage m;
  std::string error, text;
  std::vector<std::string> warnings;
  ASSERT_TRUE(wire::DecodeGetTableResponse(response.SerializeAsString(), &m, &error));
  ASSERT_TRUE(wire::TableTextFromMessage(m, &text, &warnings, &error));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("allreduce_from_the_future"), std::string::npos);
  EXPECT_EQ(text.find("allreduce_from_the_future"), std::string::npos);
}

// A rule's regime switch reaches the shim; a switch to an algorithm this
// build does not know is left out with a warning, the rule kept.
TEST(TableWire, RegimeSwitchArrives) {
  v1::GetTableResponse response = SampleResponse();
  v1::Rule* r = response.mutable_table()->mutable_sections(0)->add_rules();
  r->set_collective("scatter");
  r->set_min_bytes(0);
  r->set_max_bytes(-1);
  r->set_algorithm("default");
  r->set_loop_algorithm("scatter_as_bcast");
  r->set_imbalance_algorithm("scatter_from_the_future");
  wire::TableMessage m;
  std::string error, text;
  std::vector<std::string> warnings;
  ASSERT_TRUE(wire::DecodeGetTableResponse(response.SerializeAsString(), &m, &error));
  ASSERT_TRUE(wire::TableTextFromMessage(m, &text, &warnings, &error)) << error;
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("scatter_from_the_future"), std::string::npos) << warnings[0];
  Table table;
  ASSERT_TRUE(ParseTable(text, &table, &error)) << error << "\n" << text;
  bool found = false;
  for (const Rule& rule : table.sections[0].rules) {
    if (rule.collective != Collective::kScatter) continue;
    found = true;
    EXPECT_EQ(rule.loop, Algorithm::kScatterAsBcast);
    EXPECT_FALSE(rule.imbalance.has_value());
  }
  EXPECT_TRUE(found) << text;
}

// A daemon's rule for a datatype layout reaches the shim as one; a layout
// this build does not know is left out with a warning, as an algorithm is.
TEST(TableWire, LayoutRulesArriveAsLayoutRules) {
  v1::GetTableResponse response = SampleResponse();
  for (const char* layout : {"tiled/8B", "spiral/8B"}) {
    v1::Rule* r = response.mutable_table()->mutable_sections(0)->add_rules();
    r->set_collective("bcast");
    r->set_min_bytes(0);
    r->set_max_bytes(-1);
    r->set_algorithm("bcast_as_packed");
    r->set_layout(layout);
  }
  wire::TableMessage m;
  std::string error, text;
  std::vector<std::string> warnings;
  ASSERT_TRUE(wire::DecodeGetTableResponse(response.SerializeAsString(), &m, &error));
  ASSERT_TRUE(wire::TableTextFromMessage(m, &text, &warnings, &error)) << error;
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("spiral/8B"), std::string::npos) << warnings[0];
  Table table;
  ASSERT_TRUE(ParseTable(text, &table, &error)) << error << "\n" << text;
  ASSERT_EQ(table.sections[0].layout_rules.size(), 1u);
  EXPECT_EQ(FormatLayoutKey(table.sections[0].layout_rules[0].layout), "tiled/8B");
  EXPECT_EQ(table.sections[0].layout_rules[0].algorithm, Algorithm::kBcastAsPacked);
  EXPECT_EQ(table.sections[0].rules.size(), 2u) << "the plain rules are unchanged";
}

TEST(TableWire, UnknownCollectiveRefusesTheTable) {
  v1::GetTableResponse response = SampleResponse();
  response.mutable_table()->mutable_sections(0)->mutable_rules(0)->set_collective("alltoallx");
  wire::TableMessage m;
  std::string error, text;
  std::vector<std::string> warnings;
  ASSERT_TRUE(wire::DecodeGetTableResponse(response.SerializeAsString(), &m, &error));
  EXPECT_FALSE(wire::TableTextFromMessage(m, &text, &warnings, &error));
  EXPECT_NE(error.find("alltoallx"), std::string::npos);
}

TEST(TableWire, TruncatedAnswersAreRefused) {
  const std::string bytes = SampleResponse().SerializeAsString();
  int refused = 0;
  for (size_t n = 1; n < bytes.size(); ++n) {
    wire::TableMessage m;
    std::string error;
    if (!wire::DecodeGetTableResponse(bytes.substr(0, n), &m, &error)) {
      EXPECT_FALSE(error.empty());
      ++refused;
    }
  }
  // A cut between two top-level fields is a shorter valid message; the
  // answer has one top-level field, so every proper prefix is malformed.
  EXPECT_EQ(refused, static_cast<int>(bytes.size()) - 1);
}

TEST(TableWire, TooManySectionsAreRefused) {
  v1::GetTableResponse response;
  for (int i = 0; i <= 64; ++i) response.mutable_table()->add_sections()->set_comm_size(i + 1);
  wire::TableMessage m;
  std::string error;
  EXPECT_FALSE(wire::DecodeGetTableResponse(response.SerializeAsString(), &m, &error));
  EXPECT_NE(error.find("sections"), std::string::npos);
}

// The gRPC clients decode with the shim's code: they take and refuse what
// the shim takes and refuses.
TEST(TableWire, ClientsJudgeTablesAsTheShimDoes) {
  std::vector<std::string> warnings;
  absl::StatusOr<Table> ok = client::TableFromProto(SampleResponse().table(), &warnings);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->RuleCount(), 4u);
  EXPECT_EQ(ok->library, "MPICH");

  v1::GetTableResponse unknown = SampleResponse();
  unknown.mutable_table()->mutable_sections(0)->mutable_rules(0)->set_algorithm(
      "allreduce_from_the_future");
  warnings.clear();
  absl::StatusOr<Table> dropped = client::TableFromProto(unknown.table(), &warnings);
  ASSERT_TRUE(dropped.ok()) << dropped.status();
  EXPECT_EQ(dropped->RuleCount(), 3u);
  ASSERT_EQ(warnings.size(), 1u);

  v1::GetTableResponse many;
  for (int i = 0; i <= 64; ++i) many.mutable_table()->add_sections()->set_comm_size(i + 1);
  wire::TableMessage m;
  std::string error;
  EXPECT_FALSE(wire::DecodeGetTableResponse(many.SerializeAsString(), &m, &error));
  absl::StatusOr<Table> refused = client::TableFromProto(many.table(), &warnings);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("sections"), std::string::npos);
}

TEST(TableWire, WrongWireTypesAndGroupsAreRefused) {
  wire::TableMessage m;
  std::string error;
  // Field 1 (the table) as a varint instead of a message.
  EXPECT_FALSE(wire::DecodeGetTableResponse(std::string("\x08\x01", 2), &m, &error));
  // A start-group wire type.
  EXPECT_FALSE(wire::DecodeGetTableResponse(std::string("\x0b", 1), &m, &error));
  // An eleven-byte varint.
  EXPECT_FALSE(wire::DecodeGetTableResponse(std::string(11, '\xff'), &m, &error));
  // Field number 0.
  EXPECT_FALSE(wire::DecodeGetTableResponse(std::string("\x02\x00", 2), &m, &error));
}

TEST(TableWire, RandomBytesNeverCrash) {
  std::mt19937 rng(42);
  const std::string good = SampleResponse().SerializeAsString();
  for (int i = 0; i < 20000; ++i) {
    std::string bytes = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    wire::TableMessage m;
    std::string error, text;
    std::vector<std::string> warnings;
    if (wire::DecodeGetTableResponse(bytes, &m, &error)) {
      wire::TableTextFromMessage(m, &text, &warnings, &error);
      EXPECT_LE(m.sections.size(), 64u);
    } else {
      EXPECT_FALSE(error.empty());
    }
  }
}

}  // namespace
}  // namespace colltune
