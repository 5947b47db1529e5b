// The pure parts of authenticated uploads: the credential's binding to its
// request, the per-uid token buckets and the once-per-minute log limiter.
#include <gtest/gtest.h>

#include "auth/binding.h"
#include "auth/rate_limit.h"
#include "tests/unit/test_requests.h"

namespace colltune::auth {
namespace {

v1::ReportJobRequest Report() {
  v1::ReportJobRequest r = test_data::FinalReportRequest("slurm:1234", "run-1", 4);
  v1::JobTiming* t = r.add_timings();
  t->set_collective("allreduce");
  t->set_algorithm("default");
  t->set_calls(100);
  return r;
}

TEST(Binding, RoundTripsThroughThePayload) {
  const Binding b = BindingFor(Report());
  EXPECT_EQ(b.rpc, "ReportJob");
  EXPECT_EQ(b.subject, "slurm:1234");
  EXPECT_EQ(b.library, "Open MPI");
  EXPECT_EQ(b.comm_size, 4);
  EXPECT_EQ(b.digest.size(), 64u);
  absl::StatusOr<Binding> parsed = ParseBinding(FormatBinding(b));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(*parsed == b);
  EXPECT_TRUE(CheckBinding(*parsed, BindingFor(Report())).ok());
}

TEST(Binding, Sha256OfKnownInput) {
  EXPECT_EQ(Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Binding, AnyChangeToTheRequestIsRefusedNamingWhatDiffers) {
  const Binding credential = BindingFor(Report());

  v1::ReportJobRequest r = Report();
  r.mutable_context()->set_comm_size(8);
  absl::Status s = CheckBinding(credential, BindingFor(r));
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("comm_size '4', the request has '8'"), std::string::npos) << s;

  r = Report();
  r.mutable_context()->set_library("MPICH");
  s = CheckBinding(credential, BindingFor(r));
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("library"), std::string::npos) << s;

  r = Report();
  r.set_job_id("slurm:9999");
  s = CheckBinding(credential, BindingFor(r));
  EXPECT_NE(s.message().find("job id"), std::string::npos) << s;

  r = Report();
  r.mutable_timings(0)->set_calls(101);  // only the digest sees this
  s = CheckBinding(credential, BindingFor(r));
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("SHA-256"), std::string::npos) << s;

  // A credential for an upload does not pass for a report.
  v1::UploadMeasurementsRequest u;
  *u.mutable_context() = Report().context();
  u.set_campaign("slurm:1234");
  s = CheckBinding(BindingFor(u), BindingFor(Report()));
  EXPECT_NE(s.message().find("rpc"), std::string::npos) << s;
}

TEST(Binding, PayloadsNotMadeByColltuneAreUnauthenticated) {
  for (const char* payload :
       {"", "hello", "colltune-credential 2\nrpc ReportJob\n",
        "colltune-credential 1\nrpc ReportJob\n",  // incomplete
        "colltune-credential 1\nrpc A\nrpc B\nsubject s\nlibrary l\ncomm_size 1\ndigest d\n",
        "colltune-credential 1\nrpc A\nsubject s\nlibrary l\ncomm_size -1\ndigest d\n",
        "colltune-credential 1\nrpc A\nsubject s\nlibrary l\ncomm_size 1\ndigest d\nx y\n"}) {
    absl::StatusOr<Binding> b = ParseBinding(payload);
    EXPECT_EQ(b.status().code(), absl::StatusCode::kUnauthenticated) << payload;
  }
}

TEST(Binding, LineBreaksInFieldsCannotForgeLines) {
  v1::ReportJobRequest r = Report();
  r.set_job_id("x\ncomm_size 99");
  absl::StatusOr<Binding> b = ParseBinding(FormatBinding(BindingFor(r)));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->comm_size, 4);
  // The cleaned subject no longer equals the request's: refused.
  EXPECT_FALSE(CheckBinding(*b, BindingFor(r)).ok());
}

TEST(TokenBuckets, BurstThenSteadyRatePerKey) {
  TokenBuckets buckets(60);  // 60 per minute: one per second
  int ok = 0;
  for (int i = 0; i < 100; ++i) ok += buckets.Take(7, 1000.0);
  EXPECT_EQ(ok, 60) << "a full bucket lets a burst of 60 through";
  EXPECT_TRUE(buckets.Take(8, 1000.0)) << "another uid has its own bucket";
  EXPECT_FALSE(buckets.Take(7, 1000.5));
  EXPECT_TRUE(buckets.Take(7, 1001.1)) << "one token back after a second";
  EXPECT_FALSE(buckets.Take(7, 1001.2));
  ok = 0;
  for (int i = 0; i < 100; ++i) ok += buckets.Take(7, 1031.2);
  EXPECT_EQ(ok, 30) << "30 s refill 30 tokens";
  // Time going backwards gives nothing back.
  EXPECT_FALSE(buckets.Take(7, 900.0));
}

TEST(TokenBuckets, ZeroMeansUnlimitedAndIdleKeysAreForgotten) {
  TokenBuckets unlimited(0);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(unlimited.Take(1, 0));
  TokenBuckets buckets(10);
  for (int64_t uid = 0; uid < 500; ++uid) buckets.Take(uid, 100);
  EXPECT_EQ(buckets.tracked(), 500u);
  buckets.Take(1, 300);  // every bucket is full again: swept
  EXPECT_EQ(buckets.tracked(), 1u);
}

TEST(LogLimiter, OncePerCausePerPeriodWithTheSuppressedCount) {
  LogLimiter log(60);
  int64_t suppressed = -1;
  EXPECT_TRUE(log.ShouldLog("ReportJob: expired credential", 10, &suppressed));
  EXPECT_EQ(suppressed, 0);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(log.ShouldLog("ReportJob: expired credential", 20, nullptr));
  EXPECT_TRUE(log.ShouldLog("ReportJob: replayed credential", 20, nullptr));
  EXPECT_TRUE(log.ShouldLog("ReportJob: expired credential", 71, &suppressed));
  EXPECT_EQ(suppressed, 5);
}

}  // namespace
}  // namespace colltune::auth
