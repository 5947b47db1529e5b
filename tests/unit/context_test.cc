// JobContext (common/job_context.h) is the one context every part shares;
// colltune.v1.Context is its form on the wire. These checks fail when one
// gains a field the other lacks, or when a conversion drops one.
#include <gtest/gtest.h>

#include <string>

#include "common/job_context.h"
#include "common/table_wire.h"
#include "proto/colltune.pb.h"
#include "proto/context.h"

namespace colltune {
namespace {

JobContext EveryFieldSet() {
  JobContext c;
  c.cluster = "cluster-a";
  c.library = "Open MPI";
  c.library_version = "4.1.4";
  c.comm_size = 64;
  c.nodes = 4;
  c.ppn = 16;
  c.placement = "round_robin";
  c.node_sizes = "16*3+8";
  c.comm_size = 56;
  return c;
}

TEST(JobContext, TheProtoHasExactlyItsFields) {
  const google::protobuf::Descriptor* d = v1::Context::descriptor();
  // One entry per JobContext member, in the proto's field order.
  const char* const kFields[] = {"cluster", "library", "library_version",
                                 "comm_size", "nodes", "ppn", "placement",
                                 "node_sizes"};
  ASSERT_EQ(d->field_count(), static_cast<int>(std::size(kFields)))
      << "colltune.v1.Context and JobContext must change together";
  for (int i = 0; i < d->field_count(); ++i) {
    EXPECT_EQ(d->field(i)->name(), kFields[i]);
    EXPECT_EQ(d->field(i)->number(), i + 1);
  }
}

TEST(JobContext, SurvivesTheProtoBothWays) {
  const JobContext c = EveryFieldSet();
  const v1::Context p = ContextToProto(c);
  EXPECT_EQ(p.cluster(), "cluster-a");
  EXPECT_EQ(p.library(), "Open MPI");
  EXPECT_EQ(p.library_version(), "4.1.4");
  EXPECT_EQ(p.comm_size(), 56);
  EXPECT_EQ(p.nodes(), 4);
  EXPECT_EQ(p.ppn(), 16);
  EXPECT_EQ(p.placement(), "round_robin");
  EXPECT_EQ(p.node_sizes(), "16*3+8");
  EXPECT_EQ(ContextFromProto(p), c);
  JobContext other = c;
  other.ppn = 8;
  EXPECT_NE(ContextFromProto(p), other);
  other = c;
  other.placement = "block";
  EXPECT_NE(ContextFromProto(p), other);
  other = c;
  other.node_sizes = "";
  EXPECT_NE(ContextFromProto(p), other);
}

// The shim's hand-encoded request carries the same context libprotobuf
// would: the daemon reads back every field.
TEST(JobContext, TheShimsEncodingCarriesEveryField) {
  wire::TableRequest request;
  request.context = EveryFieldSet();
  v1::GetTableRequest parsed;
  ASSERT_TRUE(parsed.ParseFromString(wire::EncodeGetTableRequest(request)));
  EXPECT_EQ(ContextFromProto(parsed.context()), request.context);
  EXPECT_EQ(parsed.context().SerializeAsString(),
            ContextToProto(request.context).SerializeAsString());
}

}  // namespace
}  // namespace colltune
