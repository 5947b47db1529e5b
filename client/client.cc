#include "client/client.h"

#include <cstdlib>

#include "auth/client_auth.h"
#include "common/counted.h"
#include "common/histogram.h"
#include "common/limits.h"
#include "common/paths.h"
#include "common/table_wire.h"
#include "proto/context.h"

namespace colltune::client {

std::string ResolveAddress(const std::string& address) {
  if (!address.empty()) return address;
  if (const char* v = getenv("COLLTUNE_SERVER"); v && *v) return v;
  return DefaultServerAddress();
}

std::unique_ptr<v1::Tuning::Stub> Connect(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(limits::kMaxRequestBytes);
  args.SetMaxSendMessageSize(limits::kMaxRequestBytes);
  // Fail fast instead of reconnecting with backoff: callers have deadlines.
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  // TLS on TCP when $COLLTUNE_TLS_CA names trusted certificates.
  const std::string target = ResolveAddress(address);
  return v1::Tuning::NewStub(grpc::CreateCustomChannel(
      target, auth::ChannelCredentialsFor(target), args));
}

std::unique_ptr<grpc::ClientContext> WithDeadline(
    std::chrono::milliseconds timeout) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + timeout);
  return context;
}

absl::Status FromGrpc(const grpc::Status& status, const std::string& address) {
  if (status.ok()) return absl::OkStatus();
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return absl::Status(code, "cannot reach colltuned at " +
                                  ResolveAddress(address) + ": " +
                                  status.error_message());
  }
  return absl::Status(code, "colltuned: " + status.error_message());
}

absl::StatusOr<Table> TableFromProto(const v1::DecisionTable& proto,
                                     std::vector<std::string>* warnings) {
  // Through the shim's own decoder and parser (common/table_wire.h): what
  // the shim would refuse, every client refuses too.
  wire::TableMessage message;
  std::string text, error;
  if (!wire::DecodeDecisionTable(proto.SerializeAsString(), &message, &error) ||
      !wire::TableTextFromMessage(message, &text, warnings, &error)) {
    return absl::InvalidArgumentError(error);
  }
  Table table;
  if (!ParseTable(text, &table, &error)) {
    return absl::InvalidArgumentError("daemon sent an invalid table: " + error);
  }
  return table;
}

v1::ReportJobRequest ReportToProto(const Report& r) {
  v1::ReportJobRequest out;
  *out.mutable_context() = ContextToProto(r.context);
  out.set_job_id(r.job_id);
  out.set_run_id(r.run_id);
  out.set_table_version(r.table_version);
  out.set_source("online");
  out.set_final(r.final);
  out.set_ranks(r.ranks);
  for (const ReportTiming& t : r.timings) {
    v1::JobTiming* j = out.add_timings();
    j->set_collective(std::string(InfoOf(t.collective).name));
    j->set_algorithm(std::string(InfoOf(t.algorithm).name));
    j->set_min_bytes(static_cast<int64_t>(histogram::BucketMin(t.bucket)));
    j->set_max_bytes(static_cast<int64_t>(histogram::BucketMax(t.bucket)));
    j->set_calls(static_cast<int64_t>(t.calls));
    j->set_timed_calls(static_cast<int64_t>(t.timed));
    j->set_explored_calls(static_cast<int64_t>(t.explored));
    j->set_total_seconds(static_cast<double>(t.sum_ns) * 1e-9);
    j->set_comm_size(t.comm_size);
    j->set_profile_id(t.profile_id);
    j->set_first_bin(t.first_bin);
    for (uint64_t b : t.bins) j->add_bins(b);
  }
  for (const ReportCount& c : r.counts) {
    const CountedInfo& info = CountedInfoOf(c.id);
    v1::CountedCalls* o = out.add_counted();
    o->set_kind(std::string(KindName(info.kind)));
    o->set_collective(std::string(info.name));
    o->set_min_bytes(static_cast<int64_t>(histogram::BucketMin(c.bucket)));
    o->set_max_bytes(static_cast<int64_t>(histogram::BucketMax(c.bucket)));
    o->set_calls(static_cast<int64_t>(c.calls));
  }
  return out;
}

}  // namespace colltune::client
