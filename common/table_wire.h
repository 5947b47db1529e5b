// The Tuning service's GetTable request and answer and its ReportJob request
// (proto/colltune.proto) in protobuf's wire format, for the shim, which links
// no protobuf library: it fetches its table at MPI_Init and sends its report
// at MPI_Finalize with one gRPC call of its own (shim/runtime/grpc_call.h)
// instead of starting the agent. Only the fields
// the shim uses are decoded; every other field is skipped as protobuf
// requires, so a newer daemon's additions are harmless.
//
// The proto stays the one definition: tests/unit/table_wire_test.cc checks
// this encoder against libprotobuf's parser and this decoder against its
// serializer. The conversion to table text is shared with the gRPC clients
// (client::TableFromProto), so both paths judge a daemon's table alike.
#ifndef COLLTUNE_COMMON_TABLE_WIRE_H_
#define COLLTUNE_COMMON_TABLE_WIRE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/job_context.h"
#include "common/report.h"

namespace colltune::wire {

// colltune.v1.GetTableRequest.
struct TableRequest {
  JobContext context;
  bool decisions_only = false;
};

struct RuleMessage {
  std::string collective;
  int64_t min_bytes = 0;
  int64_t max_bytes = 0;
  std::string algorithm;
  double speedup = 0;
  std::string layout;  // empty: a plain rule; else a datatype layout key
  std::string loop_algorithm, imbalance_algorithm;  // the regime switch, if any
};

struct SectionMessage {
  int64_t comm_size = 0;
  int64_t profile_id = 0;
  int64_t version = 0;
  std::vector<RuleMessage> rules;
};

// colltune.v1.DecisionTable: what the shim takes from it.
struct TableMessage {
  std::string library;  // context.library
  std::string library_version;  // context.library_version
  bool reproducible = false;
  std::vector<SectionMessage> sections;
};

// The serialized GetTableRequest.
std::string EncodeGetTableRequest(const TableRequest& request);

// The serialized ReportJobRequest of a job report (source "online"), field
// for field what client::ReportToProto makes of it: the shim sends its report
// at MPI_Finalize with one gRPC call of its own.
std::string EncodeReportJobRequest(const Report& report);

// Parses a serialized DecisionTable (what a GetTableResponse holds; the gRPC
// clients serialize theirs), so the shim and the clients decode a daemon's
// table with the same code. False with *error set as below.
bool DecodeDecisionTable(std::string_view bytes, TableMessage* table, std::string* error);

// Parses a serialized GetTableResponse. False with *error set if the bytes
// are not one (truncated, wrong wire types, more sections or rules than the
// limits allow).
bool DecodeGetTableResponse(std::string_view bytes, TableMessage* table,
                            std::string* error);

// The table in the shim's text format (common/table.h), which the caller
// then parses: rules naming an algorithm this build does not know (a newer
// daemon) are left out, each with a message in *warnings, so those ranges
// run default; a structurally impossible table (an unknown collective, a
// section for no processes, negative ranges) is refused with *error set.
bool TableTextFromMessage(const TableMessage& table, std::string* text,
                          std::vector<std::string>* warnings, std::string* error);

}  // namespace colltune::wire

#endif  // COLLTUNE_COMMON_TABLE_WIRE_H_
