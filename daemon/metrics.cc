#include "daemon/metrics.h"

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <optional>

#include <google/protobuf/descriptor.h>
#include <grpcpp/grpcpp.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "proto/colltune.grpc.pb.h"

namespace colltune::daemon {
namespace {

// gRPC's status codes 0..16, as gRPC spells them.
constexpr std::array<std::string_view, 17> kCodeNames = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};
constexpr int kUnknownCode = 2;

// From 100 µs (a table from a warm cache over a unix socket) to 10 s (a
// retune over a large profile under load).
const std::vector<double> kRpcBuckets = {0.0001, 0.00025, 0.0005, 0.001,
                                         0.0025, 0.005,   0.01,   0.025,
                                         0.05,   0.1,     0.25,   0.5,
                                         1,      2.5,     5,      10};

// Report sources the validation lets through (an empty one is stored as
// "online").
constexpr std::array<std::string_view, 2> kSources = {"online", "campaign"};

// prometheus-cpp 1.0.1's TextSerializer writes HELP texts unescaped: a
// backslash or a line break in one would corrupt the exposition. Ours are
// constants; this keeps it that way.
absl::Status CheckHelp(const std::string& help) {
  if (help.find_first_of("\\\n") != std::string::npos) {
    return absl::InternalError("metric help text with a backslash or line break: " +
                               help);
  }
  return absl::OkStatus();
}

prometheus::MetricFamily GaugeFamily(std::string name, std::string help) {
  prometheus::MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = prometheus::MetricType::Gauge;
  return f;
}

void AddGauge(prometheus::MetricFamily* f,
              std::vector<prometheus::ClientMetric::Label> labels,
              double value) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  m.gauge.value = value;
  f->metric.push_back(std::move(m));
}

// The size of a file, or nullopt if it does not exist (a WAL file exists
// only while connections are open, and may be checkpointed away).
std::optional<int64_t> FileSize(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<int64_t>(st.st_size);
}

}  // namespace

struct Metrics::RpcSeries {
  std::string label;
  prometheus::Histogram* latency = nullptr;
  // By status code; made on first use (OK at start).
  std::array<std::atomic<prometheus::Counter*>, kCodeNames.size()> handled{};
};

std::string_view ReportRejectionName(ReportRejection r) {
  switch (r) {
    case ReportRejection::kContext: return "context";
    case ReportRejection::kJobFields: return "job_fields";
    case ReportRejection::kTooManyEntries: return "too_many_entries";
    case ReportRejection::kUnknownName: return "unknown_name";
    case ReportRejection::kBadTiming: return "bad_timing";
    case ReportRejection::kDuplicate: return "duplicate";
    case ReportRejection::kBadCounted: return "bad_counted";
    case ReportRejection::kStoreError: return "store_error";
  }
  return "unknown";
}

Metrics::Metrics(const MetricsOptions& options)
    : options_(options),
      start_time_(std::chrono::duration<double>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count()),
      registry_(std::make_shared<prometheus::Registry>()) {}

Metrics::~Metrics() = default;

absl::StatusOr<std::unique_ptr<Metrics>> Metrics::Create(
    const MetricsOptions& options) {
  std::unique_ptr<Metrics> m(new Metrics(options));
  absl::Status built;
  try {
    built = m->Build();
  } catch (const std::exception& e) {
    built = absl::InternalError(std::string("metrics: ") + e.what());
  }
  if (!built.ok()) return built;
  return m;
}

absl::Status Metrics::Build() {
  namespace p = prometheus;
  struct Described {
    const char* name;
    const char* help;
  };
  const Described kHandled = {
      "colltune_grpc_server_handled_total",
      "gRPC calls colltuned finished, by method and status code."};
  const Described kHandling = {
      "colltune_grpc_server_handling_seconds",
      "Time from a gRPC call's start to its status, by method."};
  const Described kIngested = {
      "colltune_job_reports_ingested_total",
      "Job reports stored, by source (online: the shim at MPI_Finalize; "
      "campaign: colltune-bench)."};
  const Described kRejected = {
      "colltune_job_reports_rejected_total",
      "Job reports refused, by reason (validation finding, or store_error)."};
  const Described kTimings = {
      "colltune_job_report_timings_total",
      "Timings (collective, algorithm, size bucket, communicator size) of "
      "stored job reports; attributed: stored under a profile as online "
      "evidence."};
  const Described kTimed = {
      "colltune_job_report_timed_calls_total",
      "Timed collective calls in stored job reports, summed over ranks."};
  const Described kExplored = {
      "colltune_job_report_explored_calls_total",
      "Timed calls of stored job reports that ran an alternative to the "
      "table's choice to explore it (online exploration volume)."};
  const Described kStart = {"colltune_process_start_time_seconds",
                            "Start time of colltuned since the Unix epoch."};
  const Described kInfo = {
      "colltune_build_info",
      "Always 1; the labels tell colltuned's version, gRPC's version and the "
      "database schema version."};
  for (const Described& d : {kHandled, kHandling, kIngested, kRejected, kTimings,
                             kTimed, kExplored, kStart, kInfo}) {
    if (absl::Status s = CheckHelp(d.help); !s.ok()) return s;
  }

  rpc_handled_ =
      &p::BuildCounter().Name(kHandled.name).Help(kHandled.help).Register(*registry_);
  auto& handling = p::BuildHistogram()
                       .Name(kHandling.name)
                       .Help(kHandling.help)
                       .Register(*registry_);
  auto make_series = [&](const std::string& label) {
    auto series = std::make_unique<RpcSeries>();
    series->label = label;
    series->latency = &handling.Add({{"method", label}}, kRpcBuckets);
    series->handled[0] = &rpc_handled_->Add({{"method", label}, {"code", "OK"}});
    return series;
  };
  // The service's methods, from its descriptor: every one is exported from
  // the start (at 0), and a name a client makes up is counted as "other".
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          v1::Tuning::service_full_name());
  if (service == nullptr) {
    return absl::InternalError("metrics: no descriptor for the gRPC service");
  }
  for (int i = 0; i < service->method_count(); ++i) {
    const std::string& name = service->method(i)->name();
    method_names_.push_back(name);
    rpc_["/" + service->full_name() + "/" + name] = make_series(name);
  }
  rpc_other_ = make_series("other");

  auto& ingested =
      p::BuildCounter().Name(kIngested.name).Help(kIngested.help).Register(*registry_);
  for (std::string_view source : kSources) {
    reports_ingested_[std::string(source)] =
        &ingested.Add({{"source", std::string(source)}});
  }
  auto& rejected =
      p::BuildCounter().Name(kRejected.name).Help(kRejected.help).Register(*registry_);
  for (int i = 0; i < kNumReportRejections; ++i) {
    reports_rejected_[i] = &rejected.Add(
        {{"reason", std::string(ReportRejectionName(static_cast<ReportRejection>(i)))}});
  }
  auto& timings =
      p::BuildCounter().Name(kTimings.name).Help(kTimings.help).Register(*registry_);
  timings_stored_ = &timings.Add({{"attributed", "true"}});
  timings_unattributed_ = &timings.Add({{"attributed", "false"}});
  timed_calls_ =
      &p::BuildCounter().Name(kTimed.name).Help(kTimed.help).Register(*registry_).Add({});
  explored_calls_ = &p::BuildCounter()
                         .Name(kExplored.name)
                         .Help(kExplored.help)
                         .Register(*registry_)
                         .Add({});
  p::BuildGauge()
      .Name(kStart.name)
      .Help(kStart.help)
      .Register(*registry_)
      .Add({})
      .Set(start_time_);
  p::BuildGauge()
      .Name(kInfo.name)
      .Help(kInfo.help)
      .Register(*registry_)
      .Add({{"version", options_.version},
            {"grpc_version", grpc::Version()},
            {"schema_version", std::to_string(options_.schema_version)}})
      .Set(1);
  return absl::OkStatus();
}

void Metrics::ObserveRpc(std::string_view method, int code, double seconds) {
  auto it = rpc_.find(method);
  RpcSeries& series = it == rpc_.end() ? *rpc_other_ : *it->second;
  if (code < 0 || code >= static_cast<int>(kCodeNames.size())) code = kUnknownCode;
  prometheus::Counter* counter = series.handled[code].load(std::memory_order_acquire);
  if (counter == nullptr) {
    // The family returns the one counter of these labels, whichever thread
    // asks first; its labels are valid, so it does not throw.
    counter = &rpc_handled_->Add(
        {{"method", series.label}, {"code", std::string(kCodeNames[code])}});
    series.handled[code].store(counter, std::memory_order_release);
  }
  series.latency->Observe(seconds);
  counter->Increment();
}

void Metrics::ReportIngested(std::string_view source, int64_t timings_stored,
                             int64_t timings_unattributed, int64_t timed_calls,
                             int64_t explored_calls) {
  auto it = reports_ingested_.find(source.empty() ? std::string_view("online") : source);
  if (it != reports_ingested_.end()) it->second->Increment();
  timings_stored_->Increment(static_cast<double>(timings_stored));
  timings_unattributed_->Increment(static_cast<double>(timings_unattributed));
  timed_calls_->Increment(static_cast<double>(timed_calls));
  explored_calls_->Increment(static_cast<double>(explored_calls));
}

void Metrics::ReportRejected(ReportRejection why) {
  const int i = static_cast<int>(why);
  if (i >= 0 && i < kNumReportRejections) reports_rejected_[i]->Increment();
}

std::string Metrics::Render(const TunerState& state) const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();

  prometheus::MetricFamily profiles = GaugeFamily(
      "colltune_profiles",
      "Profiles (measured contexts) in the database; colltune_table_version "
      "shows the most recently updated of them, at most " +
          std::to_string(kMaxContextsExported) + ".");
  AddGauge(&profiles, {}, static_cast<double>(state.profiles));
  families.push_back(std::move(profiles));

  prometheus::MetricFamily versions = GaugeFamily(
      "colltune_table_version",
      "Current decision table version of a context (profile), 0 before its "
      "first table; each new version is a change of decisions.");
  for (const ContextState& c : state.contexts) {
    AddGauge(&versions,
             {{"profile", std::to_string(c.profile_id)},
              {"cluster", c.context.cluster},
              {"library", c.context.library},
              {"library_version", c.context.library_version},
              {"comm_size", std::to_string(c.context.comm_size)},
              {"nodes", std::to_string(c.context.nodes)},
              {"ppn", std::to_string(c.context.ppn)}},
             static_cast<double>(c.table_version));
  }
  families.push_back(std::move(versions));

  prometheus::MetricFamily violations = GaugeFamily(
      "colltune_open_violations",
      "Violations the campaigns' measurements establish now, summed over "
      "profiles, by kind: guideline (a mock-up beats the library's "
      "collective), selection (one of the library's own algorithms beats "
      "its choice), monotony.");
  for (const auto& [kind, count] : state.violations) {
    AddGauge(&violations, {{"kind", kind}}, static_cast<double>(count));
  }
  families.push_back(std::move(violations));

  prometheus::MetricFamily size = GaugeFamily(
      "colltune_database_size_bytes",
      "Size of the SQLite database's files: main, and wal (its write-ahead "
      "log, 0 when absent).");
  if (std::optional<int64_t> main = FileSize(options_.db_path)) {
    AddGauge(&size, {{"file", "main"}}, static_cast<double>(*main));
  }
  AddGauge(&size, {{"file", "wal"}},
           static_cast<double>(FileSize(options_.db_path + "-wal").value_or(0)));
  families.push_back(std::move(size));

  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace colltune::daemon
