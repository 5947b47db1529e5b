// What every colltune client needs: a channel to colltuned, and the decision
// table of a GetTable answer in the shim's form, checked.
#ifndef COLLTUNE_CLIENT_CLIENT_H_
#define COLLTUNE_CLIENT_CLIENT_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "common/report.h"
#include "common/table.h"
#include "proto/colltune.grpc.pb.h"

namespace colltune::client {

// A stub for the daemon at `address` ("unix:/path" or "host:port"; empty:
// $COLLTUNE_SERVER, else the default socket).
std::unique_ptr<v1::Tuning::Stub> Connect(const std::string& address);
std::string ResolveAddress(const std::string& address);

// A client context whose deadline is `timeout` from now.
std::unique_ptr<grpc::ClientContext> WithDeadline(
    std::chrono::milliseconds timeout);

// "cannot reach colltuned at ADDR: ..." for transport failures, else the
// daemon's own message with its status code.
absl::Status FromGrpc(const grpc::Status& status, const std::string& address);

// Converts a daemon's table into the shim's form. Rules that name an
// algorithm this build does not know (a newer daemon) are dropped, each with a
// message in *warnings, so those ranges run default; anything structurally
// wrong (bad ranges, overlaps, duplicate sections, unknown collectives)
// rejects the whole table.
absl::StatusOr<Table> TableFromProto(const v1::DecisionTable& proto,
                                     std::vector<std::string>* warnings);

// A spooled job report as the ReportJob request `colltune flush` sends
// (wire::EncodeReportJobRequest makes the same bytes without protobuf).
v1::ReportJobRequest ReportToProto(const Report& report);

}  // namespace colltune::client

#endif  // COLLTUNE_CLIENT_CLIENT_H_
