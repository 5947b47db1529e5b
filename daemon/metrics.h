// colltuned's Prometheus metrics, served as GET /metrics on the web port
// (docs/operators-guide.md#metrics lists them).
//
// Built on prometheus-cpp's core library (Debian's prometheus-cpp-dev): its
// metric families, counters, gauges and fixed-bucket histograms are
// thread-safe, and its TextSerializer writes the text exposition format.
// colltuned serves that text through its own cpp-httplib server, so the
// library's pull (civetweb) and push parts are not used.
//
// Two kinds of values:
//  - events counted as they happen: gRPC calls (by the interceptor of
//    rpc_metrics.h), job reports ingested and refused (by the Tuner);
//  - state read at scrape time: table versions per context, open
//    violations, the database's size (Render's `state` and a stat of the
//    files).
//
// One Metrics object is made by main() and handed to whoever counts; there
// is no global registry. Every label has a bounded set of values: the
// service's methods, gRPC's status codes, the rejection reasons below,
// report sources, violation kinds and at most kMaxContextsExported contexts.
#ifndef COLLTUNE_DAEMON_METRICS_H_
#define COLLTUNE_DAEMON_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/job_context.h"

namespace prometheus {
class Counter;
class Histogram;
class Registry;
template <typename T>
class Family;
}  // namespace prometheus

namespace colltune::daemon {

// Why colltuned refused a job report: the part of the report validation
// (validate.h) found wrong, or the store failing to take it.
enum class ReportRejection {
  kContext,         // context missing or invalid
  kJobFields,       // source, ranks, job_id, run_id or table_version
  kTooManyEntries,  // more timings or counted entries than the limits allow
  kUnknownName,     // a timing's collective or algorithm is unknown
  kBadTiming,       // a timing's sizes, counts, times or histogram
  kDuplicate,       // a timing repeats an earlier one's cell
  kBadCounted,      // a counted-calls entry
  kStoreError,      // valid, but the database refused it
};
inline constexpr int kNumReportRejections = 8;
std::string_view ReportRejectionName(ReportRejection r);  // "context", ...

// The Tuner's state at scrape time.
struct ContextState {
  int64_t profile_id = 0;
  JobContext context;
  int64_t table_version = 0;  // 0: no table yet
};
struct TunerState {
  // The most recently updated profiles, at most kMaxContextsExported.
  std::vector<ContextState> contexts;
  int64_t profiles = 0;  // all profiles, exported or not
  // Open violations summed over every profile, by kind ("guideline",
  // "selection", "monotony").
  std::map<std::string, int64_t> violations;
};
inline constexpr int kMaxContextsExported = 256;

struct MetricsOptions {
  // The SQLite file whose size (and its -wal file's) is exported.
  std::string db_path;
  // colltune_build_info's labels.
  std::string version;
  int schema_version = 0;
};

class Metrics {
 public:
  // Fails (as a value: prometheus-cpp's exceptions stop here) only if a
  // metric or label name is invalid.
  static absl::StatusOr<std::unique_ptr<Metrics>> Create(
      const MetricsOptions& options);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // One finished gRPC call. `method` is the full name
  // ("/colltune.v1.Tuning/GetTable"); a method that is not the service's is
  // counted as "other". `code` is a grpc::StatusCode value.
  void ObserveRpc(std::string_view method, int code, double seconds);

  // A job report stored: its source ("online" or "campaign"), its timings
  // stored under a profile and unattributed, and the timed and explored
  // calls summed over its timings.
  void ReportIngested(std::string_view source, int64_t timings_stored,
                      int64_t timings_unattributed, int64_t timed_calls,
                      int64_t explored_calls);
  void ReportRejected(ReportRejection why);

  // The text exposition format (version 0.0.4): every counter above, the
  // process's start time and build information, `state`, and the database's
  // file sizes as they are now.
  std::string Render(const TunerState& state) const;

  // The service's method names ("GetTable", ...), as labelled.
  const std::vector<std::string>& rpc_methods() const { return method_names_; }

 private:
  struct RpcSeries;
  explicit Metrics(const MetricsOptions& options);
  absl::Status Build();

  const MetricsOptions options_;
  double start_time_ = 0;
  std::shared_ptr<prometheus::Registry> registry_;
  std::vector<std::string> method_names_;
  // full method name -> its series; filled by Build, read-only afterwards.
  std::map<std::string, std::unique_ptr<RpcSeries>, std::less<>> rpc_;
  std::unique_ptr<RpcSeries> rpc_other_;
  prometheus::Family<prometheus::Counter>* rpc_handled_ = nullptr;
  std::map<std::string, prometheus::Counter*, std::less<>> reports_ingested_;
  std::array<prometheus::Counter*, kNumReportRejections> reports_rejected_{};
  prometheus::Counter* timings_stored_ = nullptr;
  prometheus::Counter* timings_unattributed_ = nullptr;
  prometheus::Counter* timed_calls_ = nullptr;
  prometheus::Counter* explored_calls_ = nullptr;
};

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_METRICS_H_
