// colltuned's metrics (daemon/metrics.h): the exposition text it renders
// (escaping, histogram buckets, the state read at scrape time, the database
// file sizes), exact counts under concurrent updates, and the reason
// ValidateReport gives for each kind of bad report.
#include "daemon/metrics.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "common/histogram.h"
#include "daemon/tuner.h"
#include "daemon/validate.h"
#include "db/store.h"
#include "tests/unit/test_data.h"
#include "tests/unit/test_requests.h"

namespace colltune::daemon {
namespace {

constexpr char kGetTable[] = "/colltune.v1.Tuning/GetTable";
constexpr char kReportJob[] = "/colltune.v1.Tuning/ReportJob";

// Sample lines of the exposition: "name{labels}" -> value text.
std::map<std::string, std::string> Samples(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

class MetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/ct-metrics.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    MetricsOptions options;
    options.db_path = dir_ + "/test.db";
    options.version = "1.2.3";
    options.schema_version = 6;
    auto m = Metrics::Create(options);
    ASSERT_TRUE(m.ok()) << m.status();
    metrics_ = std::move(*m);
  }
  void TearDown() override {
    std::remove((dir_ + "/test.db").c_str());
    std::remove((dir_ + "/test.db-wal").c_str());
    rmdir(dir_.c_str());
  }
  std::map<std::string, std::string> Scrape(const TunerState& state = {}) {
    return Samples(metrics_->Render(state));
  }

  std::string dir_;
  std::unique_ptr<Metrics> metrics_;
};

TEST_F(MetricsTest, EveryMethodAndReasonStartsAtZero) {
  auto s = Scrape();
  ASSERT_FALSE(metrics_->rpc_methods().empty());
  for (const std::string& m : metrics_->rpc_methods()) {
    EXPECT_EQ(s["colltune_grpc_server_handled_total{code=\"OK\",method=\"" + m + "\"}"], "0")
        << m;
    EXPECT_EQ(s["colltune_grpc_server_handling_seconds_count{method=\"" + m + "\"}"], "0")
        << m;
  }
  for (int i = 0; i < kNumReportRejections; ++i) {
    const std::string reason(ReportRejectionName(static_cast<ReportRejection>(i)));
    EXPECT_EQ(s["colltune_job_reports_rejected_total{reason=\"" + reason + "\"}"], "0")
        << reason;
  }
  EXPECT_EQ(s["colltune_build_info{grpc_version=\"" + std::string(grpc::Version()) +
              "\",schema_version=\"6\",version=\"1.2.3\"}"],
            "1");
}

TEST_F(MetricsTest, HistogramBucketsAreCumulative) {
  metrics_->ObserveRpc(kGetTable, 0, 0.0002);   // le 0.00025 and up
  metrics_->ObserveRpc(kGetTable, 0, 0.003);    // le 0.005 and up
  metrics_->ObserveRpc(kGetTable, 5, 20.0);     // +Inf only (NOT_FOUND)
  auto s = Scrape();
  auto bucket = [&](const std::string& le) {
    return s["colltune_grpc_server_handling_seconds_bucket{method=\"GetTable\",le=\"" + le +
             "\"}"];
  };
  EXPECT_EQ(bucket("0.0001"), "0");
  EXPECT_EQ(bucket("0.00025"), "1");
  EXPECT_EQ(bucket("0.0025"), "1");
  EXPECT_EQ(bucket("0.005"), "2");
  EXPECT_EQ(bucket("10"), "2");
  EXPECT_EQ(bucket("+Inf"), "3");
  EXPECT_EQ(s["colltune_grpc_server_handling_seconds_count{method=\"GetTable\"}"], "3");
  EXPECT_DOUBLE_EQ(
      std::stod(s["colltune_grpc_server_handling_seconds_sum{method=\"GetTable\"}"]),
      20.0032);
  EXPECT_EQ(s["colltune_grpc_server_handled_total{code=\"OK\",method=\"GetTable\"}"], "2");
  EXPECT_EQ(s["colltune_grpc_server_handled_total{code=\"NOT_FOUND\",method=\"GetTable\"}"],
            "1");
}

TEST_F(MetricsTest, UnknownMethodsAndCodesHaveBoundedLabels) {
  metrics_->ObserveRpc("/evil.Service/" + std::string(1000, 'x'), 0, 0.001);
  metrics_->ObserveRpc("/colltune.v1.Tuning/NoSuchMethod", 0, 0.001);
  metrics_->ObserveRpc(kGetTable, 99, 0.001);
  metrics_->ObserveRpc(kGetTable, -1, 0.001);
  const std::string text = metrics_->Render({});
  auto s = Samples(text);
  EXPECT_EQ(s["colltune_grpc_server_handled_total{code=\"OK\",method=\"other\"}"], "2");
  EXPECT_EQ(s["colltune_grpc_server_handled_total{code=\"UNKNOWN\",method=\"GetTable\"}"],
            "2");
  EXPECT_EQ(text.find("evil"), std::string::npos);
  EXPECT_EQ(text.find("NoSuchMethod"), std::string::npos);
}

TEST_F(MetricsTest, LabelValuesAreEscaped) {
  TunerState state;
  state.profiles = 1;
  ContextState c;
  c.profile_id = 7;
  c.context = test_data::OpenMpiJob(4, 1, 4);
  c.context.cluster = "a\"b\\c\nd";
  c.table_version = 3;
  state.contexts.push_back(c);
  state.violations = {{"guideline", 2}, {"selection", 1}, {"monotony", 0}};
  const std::string text = metrics_->Render(state);
  EXPECT_NE(text.find("colltune_table_version{profile=\"7\",cluster=\"a\\\"b\\\\c\\nd\","
                      "library=\"Open MPI\",library_version=\"4.1.4\",comm_size=\"4\","
                      "nodes=\"1\",ppn=\"4\"} 3\n"),
            std::string::npos)
      << text;
  auto s = Samples(text);
  EXPECT_EQ(s["colltune_profiles"], "1");
  EXPECT_EQ(s["colltune_open_violations{kind=\"guideline\"}"], "2");
  EXPECT_EQ(s["colltune_open_violations{kind=\"selection\"}"], "1");
  EXPECT_EQ(s["colltune_open_violations{kind=\"monotony\"}"], "0");
  // No raw line break inside any sample line: every line is a comment or
  // a sample of a colltune_ metric.
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    EXPECT_TRUE(line.rfind("# ", 0) == 0 || line.rfind("colltune_", 0) == 0) << line;
  }
}

TEST_F(MetricsTest, DatabaseSizeIsTheFilesSizes) {
  auto s = Scrape();
  EXPECT_EQ(s.count("colltune_database_size_bytes{file=\"main\"}"), 0u)
      << "no file, no main size";
  EXPECT_EQ(s["colltune_database_size_bytes{file=\"wal\"}"], "0");
  std::ofstream(dir_ + "/test.db") << std::string(12345, 'x');
  std::ofstream(dir_ + "/test.db-wal") << std::string(678, 'y');
  s = Scrape();
  EXPECT_EQ(s["colltune_database_size_bytes{file=\"main\"}"], "12345");
  EXPECT_EQ(s["colltune_database_size_bytes{file=\"wal\"}"], "678");
}

TEST_F(MetricsTest, ReportsCountBySourceAndReason) {
  metrics_->ReportIngested("", 3, 1, 100, 7);
  metrics_->ReportIngested("online", 1, 0, 10, 0);
  metrics_->ReportIngested("campaign", 2, 0, 5, 0);
  metrics_->ReportRejected(ReportRejection::kBadTiming);
  metrics_->ReportRejected(ReportRejection::kBadTiming);
  metrics_->ReportRejected(ReportRejection::kStoreError);
  auto s = Scrape();
  EXPECT_EQ(s["colltune_job_reports_ingested_total{source=\"online\"}"], "2");
  EXPECT_EQ(s["colltune_job_reports_ingested_total{source=\"campaign\"}"], "1");
  EXPECT_EQ(s["colltune_job_report_timings_total{attributed=\"true\"}"], "6");
  EXPECT_EQ(s["colltune_job_report_timings_total{attributed=\"false\"}"], "1");
  EXPECT_EQ(s["colltune_job_report_timed_calls_total"], "115");
  EXPECT_EQ(s["colltune_job_report_explored_calls_total"], "7");
  EXPECT_EQ(s["colltune_job_reports_rejected_total{reason=\"bad_timing\"}"], "2");
  EXPECT_EQ(s["colltune_job_reports_rejected_total{reason=\"store_error\"}"], "1");
  EXPECT_EQ(s["colltune_job_reports_rejected_total{reason=\"context\"}"], "0");
}

TEST_F(MetricsTest, ConcurrentUpdatesAreExact) {
  constexpr int kThreads = 8, kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kEach; ++i) {
        // Every thread makes codes appear for the first time concurrently.
        metrics_->ObserveRpc(i % 2 ? kGetTable : kReportJob, (i + t) % 4, 0.001);
        if (i % 100 == 0) metrics_->ReportRejected(ReportRejection::kDuplicate);
        metrics_->ReportIngested("online", 1, 0, 2, 1);
      }
    });
  }
  // Scrapes while they count: each one whole.
  for (int k = 0; k < 20; ++k) {
    const std::string text = metrics_->Render({});
    EXPECT_NE(text.find("# TYPE colltune_grpc_server_handling_seconds histogram"),
              std::string::npos);
  }
  for (std::thread& t : threads) t.join();
  auto s = Scrape();
  long long handled = 0;
  for (const char* method : {"GetTable", "ReportJob"}) {
    for (const char* code : {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT"}) {
      const std::string key = std::string("colltune_grpc_server_handled_total{code=\"") +
                              code + "\",method=\"" + method + "\"}";
      ASSERT_EQ(s.count(key), 1u) << key;
      EXPECT_EQ(s[key], std::to_string(kThreads * kEach / 8)) << key;
      handled += std::stoll(s[key]);
    }
    EXPECT_EQ(s[std::string("colltune_grpc_server_handling_seconds_count{method=\"") +
                method + "\"}"],
              std::to_string(kThreads * kEach / 2));
  }
  EXPECT_EQ(handled, kThreads * kEach);
  EXPECT_EQ(s["colltune_job_reports_rejected_total{reason=\"duplicate\"}"],
            std::to_string(kThreads * kEach / 100));
  EXPECT_EQ(s["colltune_job_reports_ingested_total{source=\"online\"}"],
            std::to_string(kThreads * kEach));
  EXPECT_EQ(s["colltune_job_report_timed_calls_total"], std::to_string(2 * kThreads * kEach));
}

// A valid report: one timing of 10 calls at 1 us.
v1::ReportJobRequest ValidReport() {
  v1::ReportJobRequest r;
  *r.mutable_context() = test_data::OpenMpiContext(4, 1, 4);
  r.set_job_id("job-1");
  r.set_run_id("run-1");
  r.set_ranks(4);
  v1::JobTiming* t = r.add_timings();
  t->set_collective("allreduce");
  t->set_algorithm("default");
  const int b = histogram::BucketOf(1024);
  t->set_min_bytes(static_cast<int64_t>(histogram::BucketMin(b)));
  t->set_max_bytes(static_cast<int64_t>(histogram::BucketMax(b)));
  t->set_comm_size(4);
  t->set_calls(100);
  t->set_timed_calls(10);
  t->set_first_bin(histogram::BinOf(1000));
  t->add_bins(10);
  t->set_total_seconds(10 * 1000e-9);
  return r;
}

TEST(ValidateReportTest, TellsWhyAReportIsRefused) {
  ReportRejection why = ReportRejection::kStoreError;
  ASSERT_TRUE(ValidateReport(ValidReport(), &why).ok());
  struct Case {
    void (*mutate)(v1::ReportJobRequest*);
    ReportRejection want;
  };
  const Case cases[] = {
      {[](v1::ReportJobRequest* r) { r->clear_context(); }, ReportRejection::kContext},
      {[](v1::ReportJobRequest* r) { r->mutable_context()->set_comm_size(0); },
       ReportRejection::kContext},
      {[](v1::ReportJobRequest* r) { r->set_source("rumour"); }, ReportRejection::kJobFields},
      {[](v1::ReportJobRequest* r) { r->set_ranks(5); }, ReportRejection::kJobFields},
      {[](v1::ReportJobRequest* r) { r->set_job_id(""); }, ReportRejection::kJobFields},
      {[](v1::ReportJobRequest* r) { r->set_table_version(-1); }, ReportRejection::kJobFields},
      {[](v1::ReportJobRequest* r) {
         for (int i = 0; i < 5000; ++i) *r->add_timings() = r->timings(0);
       },
       ReportRejection::kTooManyEntries},
      {[](v1::ReportJobRequest* r) { r->mutable_timings(0)->set_algorithm("fastest"); },
       ReportRejection::kUnknownName},
      {[](v1::ReportJobRequest* r) { r->mutable_timings(0)->set_collective("allsort"); },
       ReportRejection::kUnknownName},
      {[](v1::ReportJobRequest* r) { r->mutable_timings(0)->set_timed_calls(11); },
       ReportRejection::kBadTiming},
      {[](v1::ReportJobRequest* r) { r->mutable_timings(0)->set_total_seconds(1); },
       ReportRejection::kBadTiming},
      {[](v1::ReportJobRequest* r) { r->mutable_timings(0)->set_explored_calls(11); },
       ReportRejection::kBadTiming},
      {[](v1::ReportJobRequest* r) { *r->add_timings() = r->timings(0); },
       ReportRejection::kDuplicate},
      {[](v1::ReportJobRequest* r) {
         v1::CountedCalls* c = r->add_counted();
         c->set_kind("nonblocking");
         c->set_collective("iallreduce");
         c->set_min_bytes(32);
         c->set_max_bytes(63);
         c->set_calls(0);
       },
       ReportRejection::kBadCounted},
  };
  for (const Case& c : cases) {
    v1::ReportJobRequest r = ValidReport();
    c.mutate(&r);
    why = ReportRejection::kStoreError;
    absl::Status s = ValidateReport(r, &why);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(ReportRejectionName(why), ReportRejectionName(c.want)) << s;
  }
}

}  // namespace
}  // namespace colltune::daemon

namespace colltune::daemon {
namespace {

// Five launches of one collective at 64 KiB: default takes 10 us, `faster`
// 5 us (with a little jitter), so the rank test finds a guideline violation.
v1::UploadMeasurementsRequest Launch(int launch, const std::string& collective,
                                     const std::string& faster) {
  v1::UploadMeasurementsRequest r;
  *r.mutable_context() = test_data::OpenMpiContext(4, 1, 4);
  r.mutable_context()->set_cluster("c");
  r.set_campaign("metrics-" + collective);
  r.set_launch(launch);
  for (const auto& [algorithm, seconds] :
       {std::make_pair(std::string("default"), 10e-6), std::make_pair(faster, 5e-6)}) {
    v1::Measurement* m = r.add_measurements();
    m->set_collective(collective);
    m->set_algorithm(algorithm);
    m->set_msg_bytes(65536);
    for (int i = 0; i < 20; ++i) m->add_samples(seconds * (1 + 0.01 * ((i + launch) % 5)));
  }
  return r;
}

TEST(TunerStateTest, ViolationsFollowUploadsAndVersionsFollowTables) {
  char dir[] = "/tmp/ct-state.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/t.db";
  auto store = db::Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  Tuner tuner(store->get(), TunerOptions{});
  auto empty = tuner.State();
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->profiles, 0);
  EXPECT_TRUE(empty->contexts.empty());
  EXPECT_EQ(empty->violations["guideline"], 0);

  for (int l = 0; l < 5; ++l) {
    ASSERT_TRUE(tuner.UploadMeasurements(Launch(l, "allreduce", "allreduce_as_reduce_bcast")).ok());
  }
  auto one = tuner.State();
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->contexts.size(), 1u);
  EXPECT_EQ(one->profiles, 1);
  const int64_t guideline = one->violations["guideline"];
  EXPECT_GE(guideline, 1);
  EXPECT_GE(one->contexts[0].table_version, 1);
  EXPECT_EQ(one->contexts[0].context.comm_size, 4);
  EXPECT_EQ(one->contexts[0].context.library, "Open MPI");
  // Scraped again: the same (from the cache).
  auto again = tuner.State();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->violations, one->violations);

  // A second collective of the same profile: the cached count is replaced.
  for (int l = 0; l < 5; ++l) {
    ASSERT_TRUE(tuner.UploadMeasurements(Launch(l, "gather", "gather_as_gatherv")).ok());
  }
  auto two = tuner.State();
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->profiles, 1);
  EXPECT_EQ(two->violations["guideline"], 2 * guideline);
  EXPECT_GT(two->contexts[0].table_version, one->contexts[0].table_version);
  store->reset();
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace colltune::daemon
