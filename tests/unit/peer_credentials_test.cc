// Unix-socket peers (daemon/peer_credentials.h, daemon/unix_listener.h):
// the "fd:N" peer names, the descriptor -> credentials map, the user
// namespace rule, and a real server whose unix-socket calls are attributed
// to this process's uid.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "auth/peer_credentials.h"
#include "client/client.h"
#include "daemon/service.h"
#include "daemon/tuner.h"
#include "db/store.h"
#include "tests/unit/test_requests.h"

namespace colltune::daemon {
namespace {

using auth::AdminToken;
using auth::IdMapping;
using auth::PeerCredentials;
using auth::PeerIdentity;

TEST(ParseFdPeer, TakesOnlyWhatAddInsecureChannelFromFdNames) {
  EXPECT_EQ(PeerCredentials::ParseFdPeer("fd:0"), 0);
  EXPECT_EQ(PeerCredentials::ParseFdPeer("fd:17"), 17);
  EXPECT_EQ(PeerCredentials::ParseFdPeer("fd:2147483647"), 2147483647);
  for (const char* bad :
       {"", "fd:", "fd", "unix:", "unix:/run/colltune/colltuned.sock", "ipv4:127.0.0.1:5",
        "ipv6:[::1]:5", "fd:-1", "fd:+3", "fd: 3", "fd:3 ", "fd:3x", "fd:0x10",
        "FD:3", "xfd:3", "fd:2147483648", "fd:99999999999", "fd:3:4"}) {
    EXPECT_EQ(PeerCredentials::ParseFdPeer(bad), std::nullopt) << bad;
  }
}

TEST(PeerCredentials, FindsWhatWasRecordedForTheDescriptor) {
  PeerCredentials peers;
  peers.Record(7, 1234, 1000, 100);
  peers.Record(8, 99, 0, 0);
  std::optional<PeerIdentity> a = peers.Find("fd:7");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->pid, 1234);
  EXPECT_EQ(a->uid, 1000);
  EXPECT_EQ(a->gid, 100);
  ASSERT_TRUE(peers.Find("fd:8"));
  EXPECT_EQ(peers.Find("fd:8")->uid, 0);
  EXPECT_EQ(peers.Find("fd:9"), std::nullopt);  // never accepted
}

TEST(PeerCredentials, MalformedOrForeignPeersHaveNoIdentity) {
  PeerCredentials peers;
  peers.Record(3, 1, 0, 0);
  for (const char* peer : {"fd:3 ", "fd:03x", "unix:", "ipv4:127.0.0.1:3", "3", ""}) {
    EXPECT_EQ(peers.Find(peer), std::nullopt) << peer;
  }
}

TEST(PeerCredentials, ANewConnectionOnAReusedNumberReplacesTheOld) {
  PeerCredentials peers;
  peers.Record(5, 10, 0, 0);
  peers.Record(5, 11, 1000, 1000);  // fd 5 closed and accepted again
  ASSERT_TRUE(peers.Find("fd:5"));
  EXPECT_EQ(peers.Find("fd:5")->uid, 1000);
  EXPECT_EQ(peers.Find("fd:5")->pid, 11);
}

TEST(IdMapping, ParsesProcUidMap) {
  EXPECT_TRUE(IdMapping().complete());
  auto full = IdMapping::Parse("         0          0 4294967295\n", 65534);
  ASSERT_TRUE(full);
  EXPECT_TRUE(full->complete());
  EXPECT_TRUE(full->Vouches(0));
  EXPECT_TRUE(full->Vouches(65534));  // the real nobody
  EXPECT_FALSE(full->Vouches(-1));
  for (const char* bad : {"", "\n", "0 0\n", "0 0 x\n", "0 0 1 2\n"}) {
    EXPECT_EQ(IdMapping::Parse(bad, 65534), std::nullopt) << bad;
  }
}

// systemd PrivateUsers=yes: root and the service's uid mapped, everyone else
// seen as the overflow uid 65534.
TEST(IdMapping, APartialNamespaceVouchesOnlyForMappedIdsAndNeverForOverflow) {
  auto m = IdMapping::Parse("0 0 1\n61234 61234 1\n", 65534);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->complete());
  EXPECT_TRUE(m->Vouches(0));
  EXPECT_TRUE(m->Vouches(61234));
  EXPECT_FALSE(m->Vouches(65534));
  EXPECT_FALSE(m->Vouches(1000));
  // Even mapped, the overflow uid stands for every unmapped user too.
  auto with_nobody = IdMapping::Parse("0 0 1\n65534 65534 1\n", 65534);
  ASSERT_TRUE(with_nobody);
  EXPECT_FALSE(with_nobody->Vouches(65534));
}

TEST(PeerCredentials, AnUnvouchedUidIsNoIdentityAndClearsTheNumber) {
  PeerCredentials peers(*IdMapping::Parse("0 0 1\n", 65534),
                        *IdMapping::Parse("0 0 1\n", 65534));
  peers.Record(4, 1, 0, 0);
  ASSERT_TRUE(peers.Find("fd:4"));
  peers.Record(4, 2, 65534, 65534);  // an unmapped user on the same number
  EXPECT_EQ(peers.Find("fd:4"), std::nullopt);
  peers.Record(6, 3, 0, 65534);  // root with an unmapped group
  ASSERT_TRUE(peers.Find("fd:6"));
  EXPECT_EQ(peers.Find("fd:6")->gid, -1);
}

// A real daemon on a unix socket: a job report sent by this process is
// stored with this process's uid and gid (SO_PEERCRED through "fd:N"), and
// the socket file is made with 0777 & ~umask and removed at the end.
TEST(UnixSocketPeers, AReportIsStoredWithTheSendersUid) {
  char dir_template[] = "/tmp/colltune-peer.XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string sock = dir + "/d.sock";
  {
    auto store = db::Store::Open(dir + "/c.db");
    ASSERT_TRUE(store.ok()) << store.status();
    TunerOptions options;
    Tuner tuner(store->get(), options);
    AdminToken token;
    PeerCredentials peers;
    TuningService service(&tuner, &token, nullptr, &peers);
    const mode_t old_umask = umask(0022);
    auto server = StartServer("unix:" + sock, &service, nullptr, nullptr, &peers);
    umask(old_umask);
    ASSERT_TRUE(server.ok()) << server.status();
    struct stat st;
    ASSERT_EQ(lstat(sock.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0755u);

    auto stub = client::Connect("unix:" + sock);
    const v1::ReportJobRequest r = test_data::FinalReportRequest("peer-job", "run-1", 2);
    v1::ReportJobResponse out;
    const grpc::Status s = test_data::Call(*stub, &v1::Tuning::Stub::ReportJob, r, &out);
    ASSERT_TRUE(s.ok()) << s.error_message();
    v1::ListProfilesResponse profiles;
    ASSERT_TRUE(test_data::Call(*stub, &v1::Tuning::Stub::ListProfiles, {}, &profiles).ok());
    ASSERT_EQ(profiles.profiles_size(), 1);
    v1::ListJobReportsRequest req;
    req.set_profile_id(profiles.profiles(0).id());
    v1::ListJobReportsResponse jobs;
    ASSERT_TRUE(test_data::Call(*stub, &v1::Tuning::Stub::ListJobReports, req, &jobs).ok());
    ASSERT_EQ(jobs.reports_size(), 1);
    EXPECT_TRUE(jobs.reports(0).has_uid());
    EXPECT_EQ(jobs.reports(0).uid(), static_cast<int64_t>(getuid()));
    EXPECT_EQ(jobs.reports(0).gid(), static_cast<int64_t>(getgid()));
    (*server)->Shutdown();
  }
  struct stat st;
  EXPECT_NE(lstat(sock.c_str(), &st), 0) << "the socket file is removed";
  std::system(("rm -rf " + dir).c_str());
}

// Without a PeerCredentials (--auth none in tests that predate it), a report
// has no uid, as before.
TEST(UnixSocketPeers, WithoutAMapNoOneIsIdentified) {
  char dir_template[] = "/tmp/colltune-peer.XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  {
    auto store = db::Store::Open(dir + "/c.db");
    ASSERT_TRUE(store.ok()) << store.status();
    Tuner tuner(store->get(), TunerOptions{});
    AdminToken token;
    TuningService service(&tuner, &token);
    auto server = StartServer("unix:" + dir + "/d.sock", &service);
    ASSERT_TRUE(server.ok()) << server.status();
    auto stub = client::Connect("unix:" + dir + "/d.sock");
    const v1::ReportJobRequest r = test_data::FinalReportRequest("anon-job", "run-1", 2);
    v1::ReportJobResponse out;
    ASSERT_TRUE(test_data::Call(*stub, &v1::Tuning::Stub::ReportJob, r, &out).ok());
    v1::ListJobReportsRequest req;
    req.set_profile_id(1);
    v1::ListJobReportsResponse jobs;
    ASSERT_TRUE(test_data::Call(*stub, &v1::Tuning::Stub::ListJobReports, req, &jobs).ok());
    ASSERT_EQ(jobs.reports_size(), 1);
    EXPECT_FALSE(jobs.reports(0).has_uid());
  }
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace colltune::daemon
