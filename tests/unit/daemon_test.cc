// colltuned's service over a real gRPC server on a unix socket, backed by a
// real SQLite file, exercised with the real client stub.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <atomic>
#include <thread>
#include <string>
#include <vector>

#include "client/client.h"
#include "common/histogram.h"
#include "common/limits.h"
#include "common/quirks.h"
#include "daemon/service.h"
#include "daemon/tuner.h"
#include "db/store.h"
#include "tests/unit/test_requests.h"

namespace colltune::daemon {
namespace {

class DaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/colltune-unit.XXXXXX";  // unix socket paths are short
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    Start();
  }
  void TearDown() override {
    Stop();
    std::system(("rm -rf " + dir_).c_str());
  }
  void Start() {
    auto store = db::Store::Open(dir_ + "/colltune.db");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    TunerOptions options;
    options.cluster = "testcluster";
    options.reproducible = reproducible_;
    tuner_ = std::make_unique<Tuner>(store_.get(), options);
    service_ = std::make_unique<TuningService>(tuner_.get(), &token_);
    auto server = StartServer(Address(), service_.get());
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    stub_ = client::Connect(Address());
  }
  void Stop() {
    if (server_) server_->Shutdown();
    server_.reset();
    service_.reset();
    tuner_.reset();
    store_.reset();
  }
  std::string Address() const { return "unix:" + dir_ + "/d.sock"; }

  static v1::Context Ctx(int comm_size, int nodes = 1, int ppn = 0) {
    return test_data::OpenMpiContext(comm_size, nodes, ppn ? ppn : comm_size);
  }

  // One call of the stub's `method`, in a context of its own.
  template <typename Request, typename Response>
  grpc::Status Call(grpc::Status (v1::Tuning::Stub::*method)(grpc::ClientContext*,
                                                              const Request&, Response*),
                    const Request& request, Response* out) {
    return test_data::Call(*stub_, method, request, out);
  }
  // The same as an admin, with `token`.
  template <typename Request, typename Response>
  grpc::Status AdminCall(grpc::Status (v1::Tuning::Stub::*method)(grpc::ClientContext*,
                                                                   const Request&, Response*),
                         const Request& request, Response* out,
                         const std::string& token = kToken) {
    grpc::ClientContext ctx;
    return (stub_.get()->*method)(Admin(&ctx, token), request, out);
  }

  static v1::UploadMeasurementsRequest Upload(int comm_size) {
    v1::UploadMeasurementsRequest r;
    *r.mutable_context() = Ctx(comm_size);
    r.set_campaign("test");
    r.set_launch(0);
    for (int64_t bytes : {8, 65536}) {
      v1::Measurement* d = r.add_measurements();
      d->set_collective("allreduce");
      d->set_algorithm("default");
      d->set_msg_bytes(bytes);
      for (int i = 0; i < 5; ++i) d->add_samples(1e-5);
      v1::Measurement* m = r.add_measurements();
      m->set_collective("allreduce");
      m->set_algorithm("allreduce_as_reduce_bcast");
      m->set_msg_bytes(bytes);
      // Twice as fast at 64 KiB, slower at 8 B.
      for (int i = 0; i < 5; ++i) m->add_samples(bytes == 8 ? 2e-5 : 5e-6);
    }
    return r;
  }

  grpc::Status Send(const v1::UploadMeasurementsRequest& r,
                    v1::UploadMeasurementsResponse* out = nullptr) {
    v1::UploadMeasurementsResponse ignored;
    grpc::ClientContext ctx;
    return stub_->UploadMeasurements(&ctx, r, out ? out : &ignored);
  }

  v1::GetTableResponse Table(int comm_size) {
    v1::GetTableRequest r;
    *r.mutable_context() = Ctx(comm_size);
    v1::GetTableResponse out;
    grpc::ClientContext ctx;
    grpc::Status s = stub_->GetTable(&ctx, r, &out);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return out;
  }

  int ProfileCount() {
    v1::ListProfilesResponse out;
    grpc::ClientContext ctx;
    EXPECT_TRUE(stub_->ListProfiles(&ctx, {}, &out).ok());
    return out.profiles_size();
  }

  // Uploads `launches` launches of the same measurements, and returns the
  // last response.
  v1::UploadMeasurementsResponse UploadLaunches(int comm_size, int launches) {
    v1::UploadMeasurementsResponse out;
    for (int l = 0; l < launches; ++l) {
      v1::UploadMeasurementsRequest r = Upload(comm_size);
      r.set_launch(l);
      grpc::Status s = Send(r, &out);
      EXPECT_TRUE(s.ok()) << s.error_message();
    }
    return out;
  }

  // A job timing of the cell (collective, algorithm, bucket holding
  // `bytes`) whose timed calls took `seconds`, histogram and total included.
  static v1::JobTiming Timing(const std::string& collective,
                              const std::string& algorithm, uint64_t bytes,
                              int comm_size, const std::vector<double>& seconds,
                              int64_t explored = 0) {
    v1::JobTiming t;
    t.set_collective(collective);
    t.set_algorithm(algorithm);
    const int b = histogram::BucketOf(bytes);
    t.set_min_bytes(static_cast<int64_t>(histogram::BucketMin(b)));
    t.set_max_bytes(static_cast<int64_t>(histogram::BucketMax(b)));
    t.set_comm_size(comm_size);
    std::vector<uint64_t> bins(histogram::kNumBins, 0);
    uint64_t total_ns = 0;
    for (double x : seconds) {
      const uint64_t ns = static_cast<uint64_t>(x * 1e9);
      ++bins[histogram::BinOf(ns)];
      total_ns += ns;
    }
    int first = 0, last = histogram::kNumBins - 1;
    while (first < last && bins[first] == 0) ++first;
    while (last > first && bins[last] == 0) --last;
    t.set_first_bin(first);
    for (int i = first; i <= last; ++i) t.add_bins(bins[i]);
    t.set_timed_calls(static_cast<int64_t>(seconds.size()));
    t.set_calls(static_cast<int64_t>(seconds.size()) * 16);
    t.set_total_seconds(static_cast<double>(total_ns) * 1e-9);
    t.set_explored_calls(explored);
    return t;
  }

  // A final report of job `job` (4 processes) with these timings, over
  // gRPC (an unidentified sender), or from `uid` (>= 0: to the tuner as the
  // service passes an identified sender on).
  v1::ReportJobResponse Report(const std::string& job,
                               const std::vector<v1::JobTiming>& timings,
                               grpc::Status* status = nullptr,
                               const std::string& run = "run-1", int64_t uid = -1) {
    v1::ReportJobRequest r;
    *r.mutable_context() = Ctx(4);
    r.set_job_id(job);
    r.set_run_id(run);
    r.set_final(true);
    r.set_ranks(4);
    for (const v1::JobTiming& t : timings) *r.add_timings() = t;
    v1::ReportJobResponse out;
    grpc::Status s;
    if (uid >= 0) {
      absl::StatusOr<v1::ReportJobResponse> got = tuner_->ReportJob(r, Uploader{uid, uid});
      if (got.ok()) out = *got;
      s = got.ok() ? grpc::Status::OK
                   : grpc::Status(grpc::StatusCode::UNKNOWN, std::string(got.status().message()));
    } else {
      grpc::ClientContext ctx;
      s = stub_->ReportJob(&ctx, r, &out);
    }
    if (status != nullptr) {
      *status = s;
    } else {
      EXPECT_TRUE(s.ok()) << s.error_message();
    }
    return out;
  }

  // Job `job-<i>` of user 1000 + i at 70000 B: the table's reduce+bcast in
  // 60 timed calls at ~100 us, default explored 6 times at ~50 us.
  v1::ReportJobResponse ReportSlowChoice(int i, const std::string& run = "run-1",
                                         grpc::Status* status = nullptr) {
    return Report("job-" + std::to_string(i),
                  {Timing("allreduce", "allreduce_as_reduce_bcast", 70000, 4,
                          Around(100e-6, 60, i)),
                   Timing("allreduce", "default", 70000, 4, Around(50e-6, 6, i), 6)},
                  status, run, 1000 + i);
  }

  // A report that `mutate` spoils, and what the refusal must say.
  struct BadReport {
    std::function<void(v1::ReportJobRequest*)> mutate;
    std::string message;
  };
  // Each of `cases` applied to a copy of `r` (as job slurm-bad) is refused
  // as an invalid argument that names what is wrong.
  void ExpectRefused(const v1::ReportJobRequest& r, const std::vector<BadReport>& cases) {
    for (const BadReport& bad : cases) {
      v1::ReportJobRequest copy = r;
      copy.set_job_id("slurm-bad");
      bad.mutate(&copy);
      v1::ReportJobResponse out;
      grpc::Status s = Call(&v1::Tuning::Stub::ReportJob, copy, &out);
      EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad.message;
      EXPECT_NE(s.error_message().find(bad.message), std::string::npos)
          << "wanted '" << bad.message << "', got: " << s.error_message();
    }
  }

  // `n` latencies around `seconds` (+-1%), distinct so rank tests see no ties.
  static std::vector<double> Around(double seconds, int n, int seed) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i) {
      v.push_back(seconds * (0.99 + 0.02 * ((i * 7 + seed * 13) % 17) / 17.0));
    }
    return v;
  }

  grpc::ClientContext* Admin(grpc::ClientContext* ctx,
                             const std::string& token = kToken) {
    ctx->AddMetadata(auth::kAdminTokenHeader, token);
    return ctx;
  }

  static constexpr const char* kToken = "0123456789abcdef-test";
  auth::AdminToken token_{kToken};
  std::string dir_;
  std::unique_ptr<db::Store> store_;
  std::unique_ptr<Tuner> tuner_;
  std::unique_ptr<TuningService> service_;
  std::unique_ptr<RpcServer> server_;
  std::unique_ptr<v1::Tuning::Stub> stub_;
  bool reproducible_ = false;
};

TEST_F(DaemonTest, ReproducibleSiteSettingReachesTheTable) {
  ASSERT_TRUE(Send(Upload(4)).ok());
  EXPECT_FALSE(Table(4).table().reproducible());
  Stop();
  reproducible_ = true;  // colltuned --reproducible
  Start();
  v1::GetTableResponse t = Table(4);
  EXPECT_TRUE(t.table().reproducible());
  std::vector<std::string> warnings;
  absl::StatusOr<colltune::Table> shim_table = client::TableFromProto(t.table(), &warnings);
  ASSERT_TRUE(shim_table.ok()) << shim_table.status();
  EXPECT_TRUE(shim_table->reproducible) << "the shim's table carries it";
}

TEST_F(DaemonTest, OneLaunchIsNoEvidence) {
  v1::UploadMeasurementsResponse out;
  ASSERT_TRUE(Send(Upload(4), &out).ok());
  EXPECT_EQ(out.stored(), 4);
  EXPECT_EQ(out.table_version(), 1);
  v1::GetTableResponse t = Table(4);
  ASSERT_EQ(t.table().sections_size(), 1);
  for (const v1::Rule& r : t.table().sections(0).rules()) {
    EXPECT_EQ(r.algorithm(), "default");
  }
}

TEST_F(DaemonTest, AFetchedTableIsNotServedAgainOnceTheStoreChanged) {
  // GetTable keeps its answers until a write; each write must end that.
  EXPECT_EQ(Table(4).table().sections_size(), 0) << "no profile yet";
  EXPECT_EQ(Table(4).table().sections_size(), 0) << "the same answer again";
  ASSERT_TRUE(Send(Upload(4)).ok());
  v1::GetTableResponse first = Table(4);
  ASSERT_EQ(first.table().sections_size(), 1) << "the upload's profile";
  EXPECT_EQ(first.table().sections(0).version(), 1);
  UploadLaunches(4, 3);
  v1::GetTableResponse second = Table(4);
  ASSERT_EQ(second.table().sections_size(), 1);
  EXPECT_EQ(second.table().sections(0).version(), 2) << "the winner's version";
  EXPECT_EQ(Table(2).table().sections(0).version(), 2)
      << "another request for the same profile";
}

TEST_F(DaemonTest, UploadProducesATableWithTheWinnerRange) {
  v1::UploadMeasurementsResponse out = UploadLaunches(4, 3);
  EXPECT_EQ(out.stored(), 4);
  EXPECT_EQ(out.table_version(), 2) << "default first, then the winner";
  EXPECT_TRUE(out.table_changed());

  v1::GetTableResponse t = Table(4);
  EXPECT_EQ(t.table().context().cluster(), "testcluster");
  ASSERT_EQ(t.table().sections_size(), 1);
  const v1::TableSection& s = t.table().sections(0);
  EXPECT_EQ(s.comm_size(), 4);
  EXPECT_EQ(s.version(), 2);
  ASSERT_EQ(s.rules_size(), 2);
  EXPECT_EQ(s.rules(0).algorithm(), "default");
  EXPECT_EQ(s.rules(1).algorithm(), "allreduce_as_reduce_bcast");
  EXPECT_EQ(s.rules(1).min_bytes(), 725);  // ceil(sqrt(8 * 65536))
  EXPECT_EQ(s.rules(1).max_bytes(), -1);
  EXPECT_NEAR(s.rules(1).speedup(), 2.0, 1e-6);
  EXPECT_LT(s.rules(1).p_value(), 0.05);
  EXPECT_EQ(s.rules(1).launches_default(), 3);
  ASSERT_EQ(s.rules(1).campaigns_size(), 1);
  EXPECT_EQ(s.rules(1).campaigns(0), "test");

  // The same upload again decides the same: no new version.
  ASSERT_TRUE(Send(Upload(4), &out).ok());
  EXPECT_EQ(out.table_version(), 2);
  EXPECT_FALSE(out.table_changed());

  // Two more launches: still version 2, but its evidence counts five.
  out = UploadLaunches(4, 5);
  EXPECT_EQ(out.table_version(), 2);
  const v1::GetTableResponse later = Table(4);
  EXPECT_EQ(later.table().sections(0).rules(1).launches_default(), 5);
  EXPECT_EQ(later.table().sections(0).rules(1).launches_algorithm(), 5);
  EXPECT_LT(later.table().sections(0).rules(1).p_value(), s.rules(1).p_value());
}

// Regimes through the service: a candidate twice as fast from a barrier and
// slower back to back keeps default, the table says so per regime; one level
// back to back wins; a launch that declared a regime its default series lacks
// is left out.
TEST_F(DaemonTest, EveryRegimeDecidesThroughTheService) {
  auto launch = [&](int l, double mock_loop, bool default_loop) {
    v1::UploadMeasurementsRequest r = Upload(4);
    r.set_launch(l);
    r.add_regimes("sync");
    r.add_regimes("loop");
    for (const char* alg : {"default", "allreduce_as_reduce_bcast"}) {
      if (!default_loop && std::string(alg) == "default") continue;
      v1::Measurement* m = r.add_measurements();
      m->set_collective("allreduce");
      m->set_algorithm(alg);
      m->set_msg_bytes(65536);
      m->set_regime("loop");
      for (int i = 0; i < 5; ++i) {
        m->add_samples(std::string(alg) == "default" ? 4e-6 + i * 1e-8 : mock_loop + i * 1e-8);
      }
    }
    return Send(r);
  };
  // Only 64 KiB has default's loop series; the 8 B point of the same
  // launches (sync alone, though loop was declared) is left out.
  for (int l = 0; l < 3; ++l) ASSERT_TRUE(launch(l, 8e-6, true).ok());
  v1::GetTableResponse t = Table(4);
  ASSERT_EQ(t.table().sections_size(), 1);
  const v1::TableSection& s = t.table().sections(0);
  ASSERT_EQ(s.rules_size(), 1);
  EXPECT_EQ(s.rules(0).algorithm(), "default") << "twice as slow back to back";
  ASSERT_EQ(s.rules(0).regimes_size(), 2);
  EXPECT_EQ(s.rules(0).regimes(0).regime(), "sync");
  EXPECT_EQ(s.rules(0).regimes(1).regime(), "loop");

  // The same campaign again, the mock-up level back to back: it wins sync.
  for (int l = 0; l < 3; ++l) ASSERT_TRUE(launch(l, 4e-6, true).ok());
  const v1::GetTableResponse t2 = Table(4);
  ASSERT_EQ(t2.table().sections_size(), 1);
  const v1::TableSection& s2 = t2.table().sections(0);
  ASSERT_EQ(s2.rules_size(), 1);
  EXPECT_EQ(s2.rules(0).algorithm(), "allreduce_as_reduce_bcast");
  EXPECT_EQ(s2.rules(0).min_bytes(), 0) << "8 B decided nothing";
  ASSERT_EQ(s2.rules(0).regimes_size(), 2);
  EXPECT_TRUE(s2.rules(0).regimes(0).won());
  EXPECT_FALSE(s2.rules(0).regimes(1).won());
  EXPECT_NEAR(s2.rules(0).regimes(1).speedup(), 1.0, 1e-6);

  // The profile lists each regime's points apart.
  v1::ListProfilesResponse profiles;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::ListProfiles, {}, &profiles).ok());
  EXPECT_EQ(profiles.profiles(0).measurements(), 12) << "synchronized points";
  v1::GetProfileRequest pr;
  pr.set_id(profiles.profiles(0).id());
  v1::GetProfileResponse profile;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetProfile, pr, &profile).ok());
  int loop_points = 0;
  for (const v1::PointSummary& p : profile.points()) loop_points += p.regime() == "loop";
  EXPECT_EQ(loop_points, 2);

  // In another context, launches that declared loop and sent no loop
  // series at all: nothing is decided.
  for (int l = 0; l < 3; ++l) {
    v1::UploadMeasurementsRequest r = Upload(64);
    r.set_launch(l);
    r.add_regimes("sync");
    r.add_regimes("loop");
    ASSERT_TRUE(Send(r).ok());
  }
  const v1::GetTableResponse t64 = Table(64);
  for (const v1::TableSection& section : t64.table().sections()) {
    EXPECT_NE(section.comm_size(), 64) << "no point decided on part of it";
  }
}

TEST_F(DaemonTest, TheLibrarysOwnAlgorithmsAreCandidatesLikeMockUps) {
  // native:ring twice as fast as default at 64 KiB over three launches: the
  // table names it, for the library it was measured with.
  v1::UploadMeasurementsResponse out;
  for (int launch = 0; launch < 3; ++launch) {
    v1::UploadMeasurementsRequest r = Upload(4);
    r.set_launch(launch);
    for (int i = 0; i < r.measurements_size(); ++i) {
      if (r.measurements(i).algorithm() != "default") {
        r.mutable_measurements(i)->set_algorithm("native:ring");
      }
    }
    ASSERT_TRUE(Send(r, &out).ok());
  }
  v1::GetTableResponse t = Table(4);
  EXPECT_EQ(t.table().context().library(), "Open MPI");
  ASSERT_EQ(t.table().sections_size(), 1);
  const v1::TableSection& s = t.table().sections(0);
  ASSERT_EQ(s.rules_size(), 2);
  EXPECT_EQ(s.rules(1).algorithm(), "native:ring");
  // The shim's view of it: a table of Open MPI's, native:ring of allreduce.
  std::vector<std::string> warnings;
  absl::StatusOr<colltune::Table> table = client::TableFromProto(t.table(), &warnings);
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->library, "Open MPI");
  ASSERT_EQ(table->sections[0].rules.size(), 2u);
  EXPECT_EQ(table->sections[0].rules[1].algorithm,
            ParseAlgorithm("native:ring", Collective::kAllreduce));
}

TEST_F(DaemonTest, NearestCommSizeWithinAFactorOfTwoElseEmpty) {
  UploadLaunches(4, 3);
  UploadLaunches(16, 3);
  std::vector<std::string> warnings;
  for (int want : {3, 4, 7, 8}) {
    auto table = client::TableFromProto(Table(want).table(), &warnings);
    ASSERT_TRUE(table.ok());
    ASSERT_NE(SelectSection(*table, want), nullptr) << want;
    EXPECT_EQ(SelectSection(*table, want)->comm_size, 4u) << want;
  }
  for (int want : {9, 12, 32}) {
    auto table = client::TableFromProto(Table(want).table(), &warnings);
    ASSERT_TRUE(table.ok());
    ASSERT_NE(SelectSection(*table, want), nullptr) << want;
    EXPECT_EQ(SelectSection(*table, want)->comm_size, 16u) << want;
  }
  for (int want : {1, 33, 1000}) {
    auto table = client::TableFromProto(Table(want).table(), &warnings);
    ASSERT_TRUE(table.ok());
    EXPECT_EQ(SelectSection(*table, want), nullptr) << want;
  }
  EXPECT_TRUE(warnings.empty());
}

TEST_F(DaemonTest, OneNodesRulesAreWithheldFromAJobOnTwoNodesWithTheReason) {
  UploadLaunches(4, 3);  // measured on 1 node x 4
  UploadLaunches(2, 3);
  ASSERT_GT(Table(4).table().sections(1).rules_size(), 0);
  v1::GetTableRequest r;
  *r.mutable_context() = Ctx(4, 2, 2);
  v1::GetTableResponse out;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetTable, r, &out).ok());
  ASSERT_EQ(out.table().sections_size(), 2);
  const v1::TableSection& own = out.table().sections(1);
  EXPECT_EQ(own.comm_size(), 4);
  EXPECT_EQ(own.rules_size(), 0);
  EXPECT_EQ(own.profile_id(), 0);
  EXPECT_NE(own.reason().find("measured on 1 node, not on this job's 2 nodes"),
            std::string::npos)
      << own.reason();
  // The shim's decoder takes it, and the job's communicator gets the empty
  // section, not the size-2 one.
  std::vector<std::string> warnings;
  auto table = client::TableFromProto(out.table(), &warnings);
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_NE(SelectSection(*table, 4), nullptr);
  EXPECT_EQ(SelectSection(*table, 4)->comm_size, 4u);
  EXPECT_TRUE(SelectSection(*table, 4)->rules.empty());
  EXPECT_EQ(SelectSection(*table, 2)->comm_size, 2u);
}

TEST_F(DaemonTest, TablesAreScopedToClusterAndLibrary) {
  ASSERT_TRUE(Send(Upload(4)).ok());
  v1::GetTableRequest r;
  *r.mutable_context() = Ctx(4);
  r.mutable_context()->set_library("MPICH");
  r.mutable_context()->set_library_version("4.0.2");
  v1::GetTableResponse out;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetTable, r, &out).ok());
  EXPECT_EQ(out.table().sections_size(), 0);
  r.mutable_context()->set_library("Open MPI");
  r.mutable_context()->set_library_version("4.1.4");
  r.mutable_context()->set_cluster("elsewhere");
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetTable, r, &out).ok());
  EXPECT_EQ(out.table().sections_size(), 0);
}

TEST_F(DaemonTest, InvalidUploadsAreRejectedWholeAndNamed) {
  struct Bad {
    std::function<void(v1::UploadMeasurementsRequest*)> mutate;
    std::string message;
  };
  // Measurement 2 as a point of `collective` with `problem`.
  const auto LayoutPoint = [](std::string collective, std::string problem) {
    return [=](v1::UploadMeasurementsRequest* r) {
      v1::Measurement* m = r->mutable_measurements(2);
      m->set_collective(collective);
      m->set_problem(problem);
    };
  };
  const std::vector<Bad> cases = {
      {[](auto* r) { r->mutable_measurements(1)->set_msg_bytes(-1); },
       "measurements[1].msg_bytes"},
      {[](auto* r) { r->mutable_measurements(0)->set_collective("allreducex"); },
       "unknown collective"},
      {[](auto* r) { r->mutable_measurements(3)->set_algorithm("turbo"); },
       "unknown algorithm"},
      {[](auto* r) { r->mutable_measurements(3)->set_algorithm("gather_as_gatherv"); },
       "does not implement"},
      {[](auto* r) { r->mutable_measurements(3)->set_algorithm("native:chain"); },
       "does not implement"},
      // MPICH's algorithm in an Open MPI context: a mislabelled upload.
      {[](auto* r) { r->mutable_measurements(3)->set_algorithm("native:smp"); },
       "'native:smp' is not an algorithm of Open MPI"},
      {[](auto* r) { r->mutable_measurements(2)->set_samples(4, std::nan("")); },
       "measurements[2].samples[4] = NaN"},
      {[](auto* r) { r->mutable_measurements(2)->set_samples(0, -1e-6); },
       "samples[0]"},
      {[](auto* r) { r->mutable_measurements(2)->set_samples(0, INFINITY); },
       "samples[0]"},
      {[](auto* r) { r->mutable_measurements(2)->clear_samples(); },
       "samples must hold"},
      {[](auto* r) { *r->add_measurements() = r->measurements(0); }, "repeats"},
      {[](auto* r) {
         r->clear_measurements();
         r->set_partial(true);
       },
       "measurements must hold"},
      {[](auto* r) { r->clear_context(); }, "context is required"},
      {[](auto* r) { r->mutable_context()->set_comm_size(-4); }, "comm_size"},
      {[](auto* r) { r->mutable_context()->set_nodes(5); }, "nodes"},
      {[](auto* r) { r->mutable_context()->set_placement("diagonal"); },
       "placement must be block, round_robin or scattered"},
      // Upload() is 4 processes on 1 node.
      {[](auto* r) { r->mutable_context()->set_node_sizes("3+1"); },
       "node_sizes '3+1' has 2 nodes, not 1"},
      {[](auto* r) { r->mutable_context()->set_node_sizes("2+2"); },
       "must list sizes largest first"},
      {[](auto* r) { r->mutable_context()->set_ppn(0); }, "ppn"},
      {[](auto* r) { r->mutable_context()->set_library(""); }, "library is required"},
      {[](auto* r) { r->mutable_context()->set_cluster("a\nb"); }, "printable"},
      {[](auto* r) { r->mutable_context()->set_cluster(std::string(200, 'x')); },
       "longer"},
      {[](auto* r) { r->set_campaign(""); }, "campaign is required"},
      {[](auto* r) { r->set_launch(-1); }, "launch"},
      {[](auto* r) { r->mutable_measurements(2)->set_collective("gatherv"); },
       "measurements[2].problem must name a block-size distribution"},
      {[](auto* r) {
         r->mutable_measurements(2)->set_collective("gatherv");
         r->mutable_measurements(2)->set_problem("zipf");
       },
       "got 'zipf'"},
      {[](auto* r) { r->mutable_measurements(2)->set_problem("same"); },
       "problem is for irregular collectives, and for a derived datatype's layout"},
      // A layout where the collective has no packed form (allreduce), an
      // unknown or unrulable layout.
      {LayoutPoint("allreduce", "@tiled/8B"), "got '@tiled/8B' for allreduce"},
      {LayoutPoint("bcast", "@other"), "got '@other' for bcast"},
      {LayoutPoint("bcast", "@tiled/7B"), "got '@tiled/7B' for bcast"},
      {[](auto* r) { r->mutable_measurements(2)->set_regime("steady"); },
       "measurements[2].regime must be sync, loop or imbalance, got 'steady'"},
      {[](auto* r) {
         // "" is what older benchmarks send for sync: the same point twice.
         *r->add_measurements() = r->measurements(0);
         r->mutable_measurements(4)->set_regime("sync");
       },
       "repeats"},
      {[](auto* r) {
         r->add_regimes("loop");
         r->add_regimes("loop");
       },
       "regimes must be distinct"},
      {[](auto* r) { r->add_regimes("Loop"); }, "got 'Loop'"},
      {[](auto* r) {
         for (int i = 0; i < 4; ++i) r->add_regimes("sync");
       },
       "at most once"},
  };
  for (const Bad& bad : cases) {
    v1::UploadMeasurementsRequest r = Upload(4);
    bad.mutate(&r);
    grpc::Status s = Send(r);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad.message;
    EXPECT_NE(s.error_message().find(bad.message), std::string::npos)
        << "got: " << s.error_message();
  }
  EXPECT_EQ(ProfileCount(), 0) << "nothing partial was written";
}

TEST_F(DaemonTest, GathervPointsAreDistributionsAndGetOneRuleForAllSizes) {
  // The tree twice as fast as the library at both distributions of 8-byte
  // average blocks, in three launches.
  for (int launch = 0; launch < 3; ++launch) {
    v1::UploadMeasurementsRequest r;
    *r.mutable_context() = Ctx(4);
    r.set_campaign("irregular");
    r.set_launch(launch);
    for (const char* problem : {"same", "spikes"}) {
      for (const char* algorithm : {"default", "gatherv_as_tuw_tree"}) {
        v1::Measurement* m = r.add_measurements();
        m->set_collective("gatherv");
        m->set_algorithm(algorithm);
        m->set_msg_bytes(8);
        m->set_problem(problem);
        const double t = std::string(algorithm) == "default" ? 2e-5 : 1e-5;
        for (int i = 0; i < 5; ++i) m->add_samples(t * (1 + 0.01 * launch));
      }
    }
    ASSERT_TRUE(Send(r).ok());
  }
  const v1::GetTableResponse t = Table(4);
  ASSERT_EQ(t.table().sections_size(), 1);
  const v1::TableSection& s = t.table().sections(0);
  ASSERT_EQ(s.rules_size(), 1);
  EXPECT_EQ(s.rules(0).collective(), "gatherv");
  EXPECT_EQ(s.rules(0).algorithm(), "gatherv_as_tuw_tree");
  EXPECT_EQ(s.rules(0).min_bytes(), 0);
  EXPECT_EQ(s.rules(0).max_bytes(), -1);

  v1::GetCampaignRequest cr;
  *cr.mutable_context() = Ctx(4);
  cr.set_campaign("irregular");
  v1::GetCampaignResponse points;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetCampaign, cr, &points).ok());
  ASSERT_EQ(points.points_size(), 12) << "2 distributions x 2 algorithms x 3 launches";
  std::set<std::string> problems;
  for (const v1::StoredPoint& p : points.points()) problems.insert(p.problem());
  EXPECT_EQ(problems, (std::set<std::string>{"same", "spikes"}));
}

TEST_F(DaemonTest, AnEmptyClosingUploadNeedsItsCampaign) {
  v1::UploadMeasurementsRequest closing = Upload(4);
  closing.clear_measurements();
  grpc::Status s = Send(closing);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(s.error_message().find("nothing of campaign"), std::string::npos)
      << s.error_message();
  EXPECT_EQ(ProfileCount(), 0);

  v1::UploadMeasurementsRequest partial = Upload(4);
  partial.set_partial(true);
  ASSERT_TRUE(Send(partial).ok());
  EXPECT_TRUE(Send(closing).ok()) << "closing after a partial upload is fine";
  EXPECT_EQ(ProfileCount(), 1);
}

TEST_F(DaemonTest, OversizePayloadsAreRefusedBeforeParsing) {
  v1::UploadMeasurementsRequest r = Upload(4);
  v1::Measurement* m = r.mutable_measurements(0);
  for (int i = 0; i < 2'200'000; ++i) m->add_samples(1e-6);  // > 16 MiB
  grpc::Status s = Send(r);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << s.error_message();
  // Below the byte limit but above the sample limit: the validator says so.
  r = Upload(4);
  for (int i = 0; i < 100'001; ++i) r.mutable_measurements(0)->add_samples(1e-6);
  s = Send(r);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("samples must hold"), std::string::npos);
  EXPECT_EQ(ProfileCount(), 0);
}

TEST_F(DaemonTest, HostileButPrintableNamesAreStoredAsText) {
  v1::UploadMeasurementsRequest r = Upload(4);
  r.mutable_context()->set_cluster("<script>alert(1)</script>");
  ASSERT_TRUE(Send(r).ok());
  v1::ListProfilesResponse out;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::ListProfiles, {}, &out).ok());
  ASSERT_EQ(out.profiles_size(), 1);
  EXPECT_EQ(out.profiles(0).context().cluster(), "<script>alert(1)</script>");
}

TEST_F(DaemonTest, JobReportsAreValidatedAndStored) {
  v1::ReportJobRequest r;
  *r.mutable_context() = Ctx(4);
  r.set_job_id("slurm-123");
  r.set_table_version(1);
  r.set_final(true);
  r.set_ranks(4);
  *r.add_timings() =
      Timing("allreduce", "allreduce_as_reduce_bcast", 1500, 4, Around(2e-6, 40, 1), 3);
  v1::ReportJobResponse out;
  {
    grpc::Status s = Call(&v1::Tuning::Stub::ReportJob, r, &out);
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_GT(out.report_id(), 0);
    EXPECT_EQ(out.timings_stored(), 1);
    EXPECT_FALSE(out.replaced());
  }
  const std::vector<BadReport> cases = {
      {[](auto* r) { r->mutable_timings(0)->set_max_bytes(4096); }, "no size bucket"},
      {[](auto* r) { r->mutable_timings(0)->set_timed_calls(41); }, "the histogram counts 40"},
      {[](auto* r) { r->mutable_timings(0)->set_total_seconds(1.0); },
       "disagrees with the histogram"},
      {[](auto* r) { r->mutable_timings(0)->set_total_seconds(std::nan("")); },
       "total_seconds"},
      {[](auto* r) { r->mutable_timings(0)->set_first_bin(histogram::kNumBins); },
       "histogram outside"},
      {[](auto* r) { r->mutable_timings(0)->set_first_bin(-1); }, "histogram outside"},
      {[](auto* r) { r->mutable_timings(0)->clear_bins(); }, "histogram outside"},
      {[](auto* r) { r->mutable_timings(0)->set_explored_calls(41); }, "explored_calls"},
      {[](auto* r) { r->mutable_timings(0)->set_calls(3); }, "call counts"},
      {[](auto* r) { r->mutable_timings(0)->set_comm_size(0); }, "comm_size"},
      {[](auto* r) { r->mutable_timings(0)->set_profile_id(-1); }, "profile_id"},
      {[](auto* r) { r->mutable_timings(0)->set_algorithm("allreduce_fast"); },
       "allreduce_fast"},
      {[](auto* r) { *r->add_timings() = r->timings(0); }, "repeats"},
      {[](auto* r) { r->set_source("rumour"); }, "source"},
      {[](auto* r) { r->set_ranks(5); }, "ranks"},
      {[](auto* r) { r->set_job_id(""); }, "job_id"},
  };
  ExpectRefused(r, cases);
  // The same job again replaces its report: still one.
  {
    ASSERT_TRUE(Call(&v1::Tuning::Stub::ReportJob, r, &out).ok());
    EXPECT_TRUE(out.replaced());
  }
  v1::ListProfilesResponse list;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::ListProfiles, {}, &list).ok());
  ASSERT_EQ(list.profiles_size(), 1);
  EXPECT_EQ(list.profiles(0).job_reports(), 1);
}

// Counted (not tuned) collectives: stored with the report, listed back
// exactly, and hostile entries rejected whole with nothing stored.
TEST_F(DaemonTest, CountedCallsAreValidatedStoredAndListed) {
  v1::ReportJobRequest r;
  *r.mutable_context() = Ctx(4);
  r.set_job_id("slurm-7");
  r.set_run_id("run-7");
  r.set_final(true);
  r.set_ranks(4);
  auto add = [](v1::ReportJobRequest* r, const std::string& kind, const std::string& name,
                int64_t min, int64_t max, int64_t calls) {
    v1::CountedCalls* c = r->add_counted();
    c->set_kind(kind);
    c->set_collective(name);
    c->set_min_bytes(min);
    c->set_max_bytes(max);
    c->set_calls(calls);
  };
  add(&r, "nonblocking", "iallreduce", 32, 63, 28);
  add(&r, "nonblocking", "iallreduce", 4, 7, 8);
  add(&r, "nonblocking", "ibarrier", 0, 0, 12);
  add(&r, "persistent", "allreduce_init", 64, 127, 3);
  add(&r, "neighborhood", "neighbor_alltoall", 8, 15, 16);
  add(&r, "neighborhood", "neighbor_allgather_init", 4, 7, 2);
  const std::vector<BadReport> cases = {
      {[](auto* r) { r->mutable_counted(0)->set_collective("iallreduce_fast"); },
       "no non-blocking, persistent or neighbourhood collective"},
      {[](auto* r) { r->mutable_counted(0)->set_collective("allreduce"); },
       "no non-blocking, persistent or neighbourhood collective"},
      {[](auto* r) { r->mutable_counted(0)->set_collective("<script>"); },
       "no non-blocking"},
      {[](auto* r) { r->mutable_counted(0)->set_collective(std::string(200, 'i')); },
       "longer than"},
      {[](auto* r) { r->mutable_counted(0)->set_kind("persistent"); },
       "kind must be 'nonblocking'"},
      {[](auto* r) { r->mutable_counted(0)->set_kind(""); }, "kind must be"},
      {[](auto* r) { r->mutable_counted(0)->set_max_bytes(64); }, "no size bucket"},
      {[](auto* r) { r->mutable_counted(0)->set_min_bytes(-1); }, "byte range"},
      {[](auto* r) { r->mutable_counted(0)->set_calls(0); }, "calls must be in 1.."},
      {[](auto* r) { r->mutable_counted(0)->set_calls(-5); }, "calls must be in 1.."},
      {[](auto* r) { r->mutable_counted(0)->set_calls(int64_t{1} << 60); },
       "calls must be in 1.."},
      {[](auto* r) { *r->add_counted() = r->counted(1); }, "repeats"},
      {[](auto* r) {
         for (int i = 0; i < limits::kMaxCountedPerReport; ++i) *r->add_counted() = r->counted(0);
       },
       "counted entries in one report"},
  };
  ExpectRefused(r, cases);
  {
    // Nothing of the rejected reports was stored (no profile even).
    v1::ListProfilesResponse list;
    ASSERT_TRUE(Call(&v1::Tuning::Stub::ListProfiles, {}, &list).ok());
    EXPECT_EQ(list.profiles_size(), 0);
  }
  v1::ReportJobResponse out;
  {
    grpc::Status s = Call(&v1::Tuning::Stub::ReportJob, r, &out);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  // A second report of the same run replaces the first, counts included.
  r.mutable_counted(0)->set_calls(29);
  {
    ASSERT_TRUE(Call(&v1::Tuning::Stub::ReportJob, r, &out).ok());
    EXPECT_TRUE(out.replaced());
  }
  v1::ListProfilesResponse list;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::ListProfiles, {}, &list).ok());
  ASSERT_EQ(list.profiles_size(), 1);
  v1::ListJobReportsRequest req;
  req.set_profile_id(list.profiles(0).id());
  v1::ListJobReportsResponse jobs;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::ListJobReports, req, &jobs).ok());
  ASSERT_EQ(jobs.reports_size(), 1);
  std::set<std::string> got, want;
  for (const v1::CountedCalls& c : jobs.reports(0).counted()) {
    got.insert(c.kind() + " " + c.collective() + " " + std::to_string(c.min_bytes()) + " " +
               std::to_string(c.max_bytes()) + " " + std::to_string(c.calls()));
  }
  for (const v1::CountedCalls& c : r.counted()) {
    want.insert(c.kind() + " " + c.collective() + " " + std::to_string(c.min_bytes()) + " " +
                std::to_string(c.max_bytes()) + " " + std::to_string(c.calls()));
  }
  EXPECT_EQ(got, want);
}

// ListJobReports: newest first, the observed speedup of the table's choice
// against the default calls the job explored, and clear errors.
TEST_F(DaemonTest, JobReportsAreListedWithObservedSpeedups) {
  // Job a ran reduce+bcast at 1.5 KiB (40 timed calls at ~2 us) and explored
  // default 5 times at ~3 us; job b ran default only.
  Report("job-a", {Timing("allreduce", "allreduce_as_reduce_bcast", 1500, 4,
                          Around(2e-6, 40, 1), 0),
                   Timing("allreduce", "default", 1500, 4, Around(3e-6, 5, 2), 5)});
  Report("job-b", {Timing("allreduce", "default", 1500, 4, Around(3e-6, 40, 3), 0)});
  v1::ListProfilesResponse list;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::ListProfiles, {}, &list).ok());
  ASSERT_EQ(list.profiles_size(), 1);
  EXPECT_FALSE(list.profiles(0).last_report_at().empty());
  v1::ListJobReportsRequest r;
  r.set_profile_id(list.profiles(0).id());
  v1::ListJobReportsResponse out;
  {
    grpc::Status s = Call(&v1::Tuning::Stub::ListJobReports, r, &out);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  EXPECT_EQ(out.total(), 2);
  ASSERT_EQ(out.reports_size(), 2);
  EXPECT_EQ(out.reports(0).job_id(), "job-b");
  ASSERT_EQ(out.reports(0).collectives_size(), 1);
  EXPECT_EQ(out.reports(0).collectives(0).tuned_calls(), 0);
  EXPECT_DOUBLE_EQ(out.reports(0).collectives(0).speedup(), 1);
  const v1::CollectiveObservation& a = out.reports(1).collectives(0);
  EXPECT_EQ(a.collective(), "allreduce");
  EXPECT_GT(a.tuned_calls(), 0);
  EXPECT_EQ(a.compared_calls(), a.tuned_calls());
  // Histogram medians are quantized to bins of at most 12.5%.
  EXPECT_NEAR(a.speedup(), 1.5, 0.2);

  r.set_limit(1);
  ASSERT_TRUE(Call(&v1::Tuning::Stub::ListJobReports, r, &out).ok());
  EXPECT_EQ(out.reports_size(), 1);
  EXPECT_EQ(out.total(), 2);
  r.set_limit(limits::kMaxJobReportsListed + 1);
  {
    EXPECT_EQ(Call(&v1::Tuning::Stub::ListJobReports, r, &out).error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
  }
  r.set_limit(0);
  r.set_profile_id(424242);
  {
    EXPECT_EQ(Call(&v1::Tuning::Stub::ListJobReports, r, &out).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }
}

// The campaign says reduce+bcast from 725 B up; jobs running it at 64 KiB
// see it twice as slow as default (which they explore). Once both sides have
// min_jobs (3) distinct jobs, the bucket [64 KiB, 128 KiB) runs default.
TEST_F(DaemonTest, OnlineEvidenceRepairsABucketAfterEnoughJobs) {
  UploadLaunches(4, 5);
  auto algorithm_at = [&](uint64_t bytes) {
    const v1::GetTableResponse t = Table(4);
    for (const v1::Rule& r : t.table().sections(0).rules()) {
      if (r.collective() == "allreduce" && static_cast<uint64_t>(r.min_bytes()) <= bytes &&
          (r.max_bytes() < 0 || bytes <= static_cast<uint64_t>(r.max_bytes()))) {
        return r.algorithm() + (r.source() == "online" ? " (online)" : "");
      }
    }
    return std::string("none");
  };
  ASSERT_EQ(algorithm_at(70000), "allreduce_as_reduce_bcast");
  // Each job from a user of its own (unidentified senders never count),
  // exploring default 6 times a run: too few calls, even with job 2's two
  // runs together, for one job alone to take the bucket back to default.
  auto job = [&](int i, const std::string& run = "run-1") { return ReportSlowChoice(i, run); };
  // The same job reporting five times is still one job.
  for (int k = 0; k < 5; ++k) job(1);
  EXPECT_EQ(algorithm_at(70000), "allreduce_as_reduce_bcast") << "one job moves nothing";
  v1::ReportJobResponse out = job(2);
  EXPECT_EQ(out.retuned_profiles_size(), 0);
  // A second run (mpirun) of the same job is not a second job.
  out = job(2, "run-2");
  EXPECT_FALSE(out.replaced());
  EXPECT_EQ(out.retuned_profiles_size(), 0);
  EXPECT_EQ(algorithm_at(70000), "allreduce_as_reduce_bcast") << "two jobs move nothing";
  out = job(3);
  ASSERT_EQ(out.retuned_profiles_size(), 1);
  EXPECT_EQ(algorithm_at(70000), "default (online)");
  EXPECT_EQ(algorithm_at(65536), "default (online)");
  EXPECT_EQ(algorithm_at(131071), "default (online)");
  EXPECT_EQ(algorithm_at(131072), "allreduce_as_reduce_bcast") << "only the bucket";
  EXPECT_EQ(algorithm_at(8192), "allreduce_as_reduce_bcast");

  // The evidence: 3 jobs a side, default twice as fast. (Job medians read
  // from histograms tie often, so the p-value is the tie-corrected one.)
  const v1::GetTableResponse t = Table(4);
  for (const v1::Rule& r : t.table().sections(0).rules()) {
    if (r.source() != "online") continue;
    EXPECT_EQ(r.launches_default(), 3);
    EXPECT_EQ(r.launches_algorithm(), 3);
    EXPECT_GT(r.p_value(), 0);
    EXPECT_LE(r.p_value(), 0.05);
    EXPECT_NEAR(r.speedup(), 1.0, 1e-9);
  }
  // History names the job and the change.
  v1::GetTableHistoryRequest h;
  h.set_profile_id(1);
  v1::GetTableHistoryResponse history;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetTableHistory, h, &history).ok());
  EXPECT_EQ(history.versions(0).reason(), "online: job 'job-3'");
  EXPECT_EQ(history.versions(0).changes(),
            "allreduce 65536-131071: allreduce_as_reduce_bcast -> default");

  // Hysteresis: later jobs in which the two are within noise keep default.
  for (int i = 4; i < 10; ++i) {
    Report("job-" + std::to_string(i),
           {Timing("allreduce", "allreduce_as_reduce_bcast", 70000, 4,
                   Around(48e-6, 8, i), 8),
            Timing("allreduce", "default", 70000, 4, Around(50e-6, 60, i))},
           nullptr, "run-1", 1000 + i);
  }
  EXPECT_EQ(algorithm_at(70000), "default (online)");
  // Same decision, newer evidence: the range's evidence counts every job
  // (refreshed in place, only the ranges whose evidence moved).
  const v1::GetTableResponse later = Table(4);
  int online_ranges = 0;
  for (const v1::Rule& r : later.table().sections(0).rules()) {
    if (r.source() != "online") continue;
    ++online_ranges;
    EXPECT_EQ(r.launches_default(), 9);
    EXPECT_EQ(r.launches_algorithm(), 9);
  }
  EXPECT_EQ(online_ranges, 1);
  EXPECT_EQ(later.table().sections(0).version(), t.table().sections(0).version())
      << "evidence alone makes no version";

  // The profile shows the online evidence.
  v1::GetProfileRequest pr;
  pr.set_id(1);
  v1::GetProfileResponse profile;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetProfile, pr, &profile).ok());
  ASSERT_EQ(profile.online_size(), 2);
  EXPECT_EQ(profile.online(0).min_bytes(), 65536);
  EXPECT_EQ(profile.online(0).jobs(), 9);
}

TEST_F(DaemonTest, AJobsFetchCarriesTheDecisionsOfTheFullTableAtEveryStep) {
  // What a job's shim asks for (decisions_only) is cached apart from the
  // full table and kept while job reports refresh only evidence; after
  // every write it must still be the full table's rules, less evidence.
  auto fetch = [&](bool decisions_only) {
    v1::GetTableRequest r;
    *r.mutable_context() = Ctx(4);
    r.set_decisions_only(decisions_only);
    v1::GetTableResponse out;
    EXPECT_TRUE(Call(&v1::Tuning::Stub::GetTable, r, &out).ok());
    return out;
  };
  auto same_decisions = [&](const std::string& step) {
    const v1::GetTableResponse slim = fetch(true), full = fetch(false);
    ASSERT_EQ(slim.table().sections_size(), full.table().sections_size()) << step;
    for (int i = 0; i < full.table().sections_size(); ++i) {
      const v1::TableSection& a = slim.table().sections(i);
      const v1::TableSection& b = full.table().sections(i);
      EXPECT_EQ(a.version(), b.version()) << step;
      ASSERT_EQ(a.rules_size(), b.rules_size()) << step;
      for (int k = 0; k < b.rules_size(); ++k) {
        v1::Rule expected;
        expected.set_collective(b.rules(k).collective());
        expected.set_min_bytes(b.rules(k).min_bytes());
        expected.set_max_bytes(b.rules(k).max_bytes());
        expected.set_algorithm(b.rules(k).algorithm());
        EXPECT_EQ(a.rules(k).SerializeAsString(), expected.SerializeAsString())
            << step << ": rule " << k << " " << b.rules(k).ShortDebugString();
      }
    }
  };
  UploadLaunches(4, 5);
  same_decisions("after the campaign");
  const v1::GetTableResponse full = fetch(false);
  ASSERT_EQ(full.table().sections_size(), 1);
  int with_evidence = 0;
  for (const v1::Rule& r : full.table().sections(0).rules()) {
    with_evidence += r.launches_default() > 0 && !r.campaigns().empty();
  }
  EXPECT_GT(with_evidence, 0) << "the full table keeps its evidence";
  for (int i = 1; i <= 4; ++i) {
    ReportSlowChoice(i);
    same_decisions("after job " + std::to_string(i));
  }
  bool reverted = false;
  const v1::GetTableResponse slim = fetch(true);
  ASSERT_EQ(slim.table().sections_size(), 1);
  for (const v1::Rule& r : slim.table().sections(0).rules()) {
    reverted = reverted || (r.collective() == "allreduce" && r.min_bytes() == 65536 &&
                            r.algorithm() == "default");
  }
  EXPECT_TRUE(reverted) << "the jobs' revert reached the cached answer";
}

TEST_F(DaemonTest, ConcurrentReportsAreEachStoredAndAnswered) {
  // Senders at once share transactions (ReportJob's group commit): each
  // still gets its own answer, every report is stored once, and the
  // evidence of all of them decides, as if they had come one by one.
  UploadLaunches(4, 5);
  constexpr int kSenders = 8, kEach = 20;
  std::vector<std::vector<v1::ReportJobResponse>> answers(kSenders);
  std::atomic<int> failed{0};
  std::vector<std::thread> senders;
  for (int t = 0; t < kSenders; ++t) {
    senders.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const int job = t * kEach + i;
        grpc::Status s;
        answers[t].push_back(ReportSlowChoice(job, "run-1", &s));
        if (!s.ok()) failed.fetch_add(1);
      }
    });
  }
  for (std::thread& t : senders) t.join();
  EXPECT_EQ(failed.load(), 0);
  std::set<int64_t> ids;
  for (const auto& of_sender : answers) {
    for (const v1::ReportJobResponse& a : of_sender) {
      EXPECT_GT(a.report_id(), 0);
      EXPECT_EQ(a.timings_stored(), 2);
      EXPECT_FALSE(a.replaced());
      ids.insert(a.report_id());
    }
  }
  EXPECT_EQ(ids.size(), static_cast<size_t>(kSenders * kEach)) << "one report, one id";
  v1::ListProfilesResponse list;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::ListProfiles, {}, &list).ok());
  ASSERT_EQ(list.profiles_size(), 1);
  EXPECT_EQ(list.profiles(0).job_reports(), kSenders * kEach);
  std::string at_70000 = "none";
  const v1::GetTableResponse table = Table(4);
  for (const v1::Rule& r : table.table().sections(0).rules()) {
    if (r.collective() == "allreduce" && r.min_bytes() <= 70000 &&
        (r.max_bytes() < 0 || 70000 <= r.max_bytes())) {
      at_70000 = r.algorithm() + " " + r.source();
    }
  }
  EXPECT_EQ(at_70000, "default online") << "the jobs' evidence took the bucket back";
}

TEST_F(DaemonTest, OnlineEvidenceGoesToTheProfileOfItsCommunicators) {
  UploadLaunches(2, 3);  // profile 1: 2 processes
  v1::GetTableResponse t = Table(2);
  const int64_t two = t.table().sections(0).profile_id();
  // A 4-process job: its 2-process sub-communicators used profile `two`'s
  // section; a size-3 communicator had no section.
  v1::JobTiming sub = Timing("bcast", "default", 100, 2, Around(1e-6, 10, 1));
  sub.set_profile_id(two);
  v1::JobTiming odd = Timing("bcast", "default", 100, 3, Around(1e-6, 10, 1));
  v1::JobTiming world = Timing("bcast", "default", 100, 4, Around(1e-6, 10, 1));
  v1::ReportJobResponse out = Report("job-a", {sub, odd, world});
  EXPECT_EQ(out.timings_stored(), 2);
  EXPECT_EQ(out.timings_unattributed(), 1);
  // A section profile of another size does not take evidence.
  v1::JobTiming wrong = Timing("bcast", "default", 100, 3, Around(1e-6, 10, 1));
  wrong.set_profile_id(two);
  out = Report("job-b", {wrong});
  EXPECT_EQ(out.timings_unattributed(), 1);
  v1::GetProfileRequest pr;
  pr.set_id(two);
  v1::GetProfileResponse profile;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetProfile, pr, &profile).ok());
  ASSERT_EQ(profile.online_size(), 1);
  EXPECT_EQ(profile.online(0).collective(), "bcast");
  EXPECT_EQ(profile.online(0).jobs(), 1);
}

TEST_F(DaemonTest, ProfilesAndPointSummaries) {
  UploadLaunches(4, 2);
  v1::ListProfilesResponse list;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::ListProfiles, {}, &list).ok());
  ASSERT_EQ(list.profiles_size(), 1);
  const v1::ProfileSummary& p = list.profiles(0);
  EXPECT_EQ(p.campaigns(), 1);
  EXPECT_EQ(p.launches(), 2);
  EXPECT_EQ(p.measurements(), 8);
  EXPECT_EQ(p.rules_not_default(), 0) << "two launches prove nothing";
  v1::GetProfileRequest get;
  get.set_id(p.id());
  v1::GetProfileResponse out;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetProfile, get, &out).ok());
  ASSERT_EQ(out.points_size(), 4);
  EXPECT_EQ(out.points(0).launches(), 2);
  EXPECT_EQ(out.points(0).samples(), 10);
  EXPECT_EQ(out.table().rules_size(), 1);
  get.set_id(999);
  EXPECT_EQ(Call(&v1::Tuning::Stub::GetProfile, get, &out).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(DaemonTest, CampaignLaunchesAreListedWithTheirUploaders) {
  // Launch 0 from a user munged (or the socket) identified, launch 1 from
  // another, launch 2 over this test's socket without peer credentials.
  v1::UploadMeasurementsRequest r = Upload(4);
  r.set_host("node7");
  absl::StatusOr<v1::UploadMeasurementsResponse> up =
      tuner_->UploadMeasurements(r, Uploader{1234, 567});
  ASSERT_TRUE(up.ok()) << up.status();
  r.set_launch(1);
  ASSERT_TRUE(tuner_->UploadMeasurements(r, Uploader{0, 0}).ok());
  r.set_launch(2);
  ASSERT_TRUE(Send(r).ok());
  // A closing upload without points leaves launch 0's sender as it is.
  v1::UploadMeasurementsRequest close = r;
  close.clear_measurements();
  close.set_launch(0);
  ASSERT_TRUE(tuner_->UploadMeasurements(close, Uploader{999, 999}).ok());

  v1::GetProfileRequest get;
  get.set_id(up->profile_id());
  v1::GetProfileResponse out;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetProfile, get, &out).ok());
  ASSERT_EQ(out.campaign_launches_size(), 3);
  const v1::CampaignLaunch& first = out.campaign_launches(0);
  EXPECT_EQ(first.campaign(), "test");
  EXPECT_EQ(first.launch(), 0);
  EXPECT_EQ(first.host(), "node7");
  EXPECT_EQ(first.points(), 4);
  EXPECT_FALSE(first.uploaded_at().empty());
  ASSERT_TRUE(first.has_uid());
  EXPECT_EQ(first.uid(), 1234);
  EXPECT_EQ(first.gid(), 567);
  EXPECT_EQ(out.campaign_launches(1).launch(), 1);
  ASSERT_TRUE(out.campaign_launches(1).has_uid()) << "uid 0 is a sender too";
  EXPECT_EQ(out.campaign_launches(1).uid(), 0);
  EXPECT_EQ(out.campaign_launches(1).gid(), 0);
  EXPECT_EQ(out.campaign_launches(2).launch(), 2);
  EXPECT_FALSE(out.campaign_launches(2).has_uid()) << "nobody identified";
  EXPECT_FALSE(out.campaign_launches(2).has_gid());
}

TEST_F(DaemonTest, ARestartedDaemonServesTheSameTable) {
  UploadLaunches(4, 3);
  const std::string before = Table(4).DebugString();
  Stop();
  Start();
  EXPECT_EQ(Table(4).DebugString(), before);
  EXPECT_EQ(ProfileCount(), 1);
}

TEST_F(DaemonTest, HistoryVersionsAndRollback) {
  UploadLaunches(4, 3);
  v1::GetTableHistoryRequest h;
  h.set_profile_id(1);
  v1::GetTableHistoryResponse history;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetTableHistory, h, &history).ok());
  ASSERT_EQ(history.versions_size(), 2);
  EXPECT_EQ(history.versions(0).version(), 2);
  EXPECT_NE(history.versions(0).changes().find(
                "allreduce 725-inf: default -> allreduce_as_reduce_bcast"),
            std::string::npos)
      << history.versions(0).changes();
  EXPECT_EQ(history.versions(0).rules_not_default(), 1);

  v1::RollbackTableRequest rb;
  rb.set_profile_id(1);
  rb.set_version(1);
  v1::RollbackTableResponse rolled;
  // No token.
  EXPECT_EQ(Call(&v1::Tuning::Stub::RollbackTable, rb, &rolled).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(
      AdminCall(&v1::Tuning::Stub::RollbackTable, rb, &rolled, "wrong-token-0000000").error_code(),
      grpc::StatusCode::PERMISSION_DENIED);
  {
    grpc::Status s = AdminCall(&v1::Tuning::Stub::RollbackTable, rb, &rolled);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  EXPECT_EQ(rolled.table_version(), 3);
  v1::GetTableResponse t = Table(4);
  for (const v1::Rule& r : t.table().sections(0).rules()) {
    EXPECT_EQ(r.algorithm(), "default") << "version 1's rules are back";
  }
  v1::GetTableVersionRequest v;
  v.set_profile_id(1);
  v.set_version(2);
  v1::GetTableVersionResponse version;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetTableVersion, v, &version).ok());
  EXPECT_EQ(version.table().version(), 2);
  EXPECT_EQ(version.table().rules(1).algorithm(), "allreduce_as_reduce_bcast");
  rb.set_version(9);
  EXPECT_EQ(AdminCall(&v1::Tuning::Stub::RollbackTable, rb, &rolled).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(DaemonTest, PinsAreRespectedUntilUnpinned) {
  UploadLaunches(4, 3);
  v1::PinRequest pin;
  pin.mutable_pin()->set_profile_id(1);
  pin.mutable_pin()->set_collective("allreduce");
  pin.mutable_pin()->set_min_bytes(1 << 20);
  pin.mutable_pin()->set_max_bytes(-1);
  pin.mutable_pin()->set_algorithm("allreduce_as_reducescatterblock_allgather");
  pin.mutable_pin()->set_note("site policy");
  v1::PinResponse pinned;
  {
    EXPECT_EQ(Call(&v1::Tuning::Stub::Pin, pin, &pinned).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  }
  {
    grpc::Status s = AdminCall(&v1::Tuning::Stub::Pin, pin, &pinned);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  std::vector<std::string> warnings;
  auto table = client::TableFromProto(Table(4).table(), &warnings);
  ASSERT_TRUE(table.ok());
  const Section* s = SelectSection(*table, 4);
  ASSERT_NE(s, nullptr);
  auto algorithm_at = [&](uint64_t bytes) {
    for (const Rule& r : s->rules) {
      if (r.collective == Collective::kAllreduce && r.min_bytes <= bytes &&
          bytes <= r.max_bytes) {
        return r.algorithm;
      }
    }
    return Algorithm::kDefault;
  };
  EXPECT_EQ(algorithm_at(65536), Algorithm::kAllreduceAsReduceBcast);
  EXPECT_EQ(algorithm_at(4 << 20), Algorithm::kAllreduceAsReducescatterblockAllgather);
  // New evidence does not move a pinned range.
  UploadLaunches(4, 3);
  table = client::TableFromProto(Table(4).table(), &warnings);
  s = SelectSection(*table, 4);
  EXPECT_EQ(algorithm_at(4 << 20), Algorithm::kAllreduceAsReducescatterblockAllgather);
  // Nor does a rollback to a version from before the pin.
  {
    v1::RollbackTableRequest rb;
    rb.set_profile_id(1);
    rb.set_version(1);
    v1::RollbackTableResponse rolled;
    grpc::Status st = AdminCall(&v1::Tuning::Stub::RollbackTable, rb, &rolled);
    ASSERT_TRUE(st.ok()) << st.error_message();
  }
  table = client::TableFromProto(Table(4).table(), &warnings);
  s = SelectSection(*table, 4);
  EXPECT_EQ(algorithm_at(4 << 20), Algorithm::kAllreduceAsReducescatterblockAllgather);
  bool marked = false;
  const v1::GetTableResponse served = Table(4);
  for (const v1::Rule& r : served.table().sections(0).rules()) {
    marked = marked || (r.pinned() && r.min_bytes() == (1 << 20));
  }
  EXPECT_TRUE(marked) << "the pinned range says so";

  v1::ListPinsRequest list;
  list.set_profile_id(1);
  v1::ListPinsResponse pins;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::ListPins, list, &pins).ok());
  ASSERT_EQ(pins.pins_size(), 1);
  EXPECT_EQ(pins.pins(0).note(), "site policy");

  pin.mutable_pin()->set_algorithm("bcast_as_allgatherv");
  {
    grpc::Status st = AdminCall(&v1::Tuning::Stub::Pin, pin, &pinned);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(st.error_message().find("does not implement"), std::string::npos);
  }
  v1::UnpinRequest unpin;
  unpin.set_profile_id(1);
  unpin.set_pin_id(pins.pins(0).id());
  v1::UnpinResponse unpinned;
  ASSERT_TRUE(AdminCall(&v1::Tuning::Stub::Unpin, unpin, &unpinned).ok());
  table = client::TableFromProto(Table(4).table(), &warnings);
  s = SelectSection(*table, 4);
  EXPECT_EQ(algorithm_at(4 << 20), Algorithm::kAllreduceAsReduceBcast);
  EXPECT_EQ(AdminCall(&v1::Tuning::Stub::Unpin, unpin, &unpinned).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(DaemonTest, ViolationsAndCampaignPoints) {
  UploadLaunches(4, 3);
  v1::GetViolationsRequest vr;
  vr.set_profile_id(1);
  v1::GetViolationsResponse violations;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetViolations, vr, &violations).ok());
  // One guideline violation, then the library's defects (the quirks table's
  // rows for Open MPI 4.1.4), none named by the table.
  std::vector<v1::Violation> defects;
  for (const v1::Violation& d : violations.violations()) {
    if (d.kind() == "defect") defects.push_back(d);
  }
  int open_mpi_rows = 0;
  for (const Quirk* q = QuirksBegin(); q != QuirksEnd(); ++q) {
    open_mpi_rows += (q->library & kOpenMpi) ? 1 : 0;
  }
  ASSERT_GT(open_mpi_rows, 0);
  EXPECT_EQ(static_cast<int>(defects.size()), open_mpi_rows);
  const auto ring = std::find_if(defects.begin(), defects.end(), [](const v1::Violation& d) {
    return d.collective() == "allreduce" && d.algorithm() == "native:ring";
  });
  ASSERT_NE(ring, defects.end());
  EXPECT_EQ(ring->forms(), "a non-commutative operation");
  EXPECT_NE(ring->evidence().find("Open MPI 4.1.4"), std::string::npos);
  EXPECT_FALSE(ring->in_table());
  ASSERT_EQ(violations.violations_size(), 1 + open_mpi_rows);
  const v1::Violation& v = violations.violations(0);
  EXPECT_EQ(v.kind(), "guideline");
  EXPECT_EQ(v.guideline(), "GL5");
  EXPECT_EQ(v.msg_bytes(), 65536);
  EXPECT_NEAR(v.factor(), 2.0, 1e-6);

  v1::GetCampaignRequest cr;
  *cr.mutable_context() = Ctx(4);
  cr.set_campaign("test");
  v1::GetCampaignResponse points;
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetCampaign, cr, &points).ok());
  EXPECT_EQ(points.points_size(), 12) << "4 points in each of 3 launches";
  cr.set_campaign("other");
  ASSERT_TRUE(Call(&v1::Tuning::Stub::GetCampaign, cr, &points).ok());
  EXPECT_EQ(points.points_size(), 0);
}

TEST_F(DaemonTest, AdminRequestsAreRefusedWithoutAConfiguredToken) {
  UploadLaunches(4, 1);
  auth::AdminToken none;
  TuningService open(tuner_.get(), &none);
  grpc::ServerContext server_ctx;
  v1::RollbackTableRequest rb;
  rb.set_profile_id(1);
  rb.set_version(1);
  v1::RollbackTableResponse out;
  grpc::Status s = open.RollbackTable(&server_ctx, &rb, &out);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(s.error_message().find("--admin-token-file"), std::string::npos);
}

TEST_F(DaemonTest, ALiveSocketIsNotStolen) {
  TuningService other(tuner_.get(), &token_);
  auto second = StartServer(Address(), &other);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(std::string(second.status().message()).find("another daemon"),
            std::string::npos);
}

TEST(ClientTable, NonsenseFromADaemonIsRejectedOrNeutralized) {
  std::vector<std::string> warnings;
  v1::DecisionTable t;
  v1::TableSection* s = t.add_sections();
  s->set_comm_size(4);
  v1::Rule* r = s->add_rules();
  r->set_collective("bcast");
  r->set_min_bytes(0);
  r->set_max_bytes(-1);
  r->set_algorithm("bcast_from_the_future");
  auto ok = client::TableFromProto(t, &warnings);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_TRUE(ok->sections[0].rules.empty()) << "unknown algorithm dropped";
  EXPECT_EQ(warnings.size(), 1u);

  r->set_algorithm("default");
  r->set_collective("bcast 0 inf bcast_as_scatter_allgather\nforce gather");
  EXPECT_FALSE(client::TableFromProto(t, &warnings).ok()) << "no injection";
  r->set_collective("bcast");
  r->set_min_bytes(-5);
  EXPECT_FALSE(client::TableFromProto(t, &warnings).ok());
  r->set_min_bytes(0);
  *s->add_rules() = *r;  // overlapping
  EXPECT_FALSE(client::TableFromProto(t, &warnings).ok());
  s->mutable_rules()->RemoveLast();
  s->set_comm_size(0);
  EXPECT_FALSE(client::TableFromProto(t, &warnings).ok());
}

}  // namespace
}  // namespace colltune::daemon
