// The shim's own gRPC call (shim/runtime/grpc_call.h) against a real gRPC
// server, and against servers that misbehave on a raw socket.
#include "shim/runtime/grpc_call.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "common/table_wire.h"
#include "proto/colltune.grpc.pb.h"

namespace colltune::shim {
namespace {

constexpr char kMethod[] = "/colltune.v1.Tuning/GetTable";

// Answers GetTable with `rules` rules in one section, or with `status`.
class FakeTuning final : public v1::Tuning::Service {
 public:
  int rules = 1;
  grpc::Status status = grpc::Status::OK;
  v1::GetTableRequest last;

  grpc::Status GetTable(grpc::ServerContext*, const v1::GetTableRequest* request,
                        v1::GetTableResponse* response) override {
    last = *request;
    if (!status.ok()) return status;
    v1::TableSection* s = response->mutable_table()->add_sections();
    s->set_comm_size(request->context().comm_size());
    for (int i = 0; i < rules; ++i) {
      v1::Rule* r = s->add_rules();
      r->set_collective("bcast");
      r->set_min_bytes(2 * i);
      r->set_max_bytes(2 * i + 1);
      r->set_algorithm("default");
      r->add_campaigns("campaign-" + std::to_string(i));
    }
    return grpc::Status::OK;
  }
};

std::string TempDir() {
  char dir[] = "/tmp/ctgc.XXXXXX";
  if (mkdtemp(dir) == nullptr) return "/tmp";
  return dir;
}

class RealServer : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir();
    socket_ = "unix:" + dir_ + "/s";
    grpc::ServerBuilder builder;
    builder.AddListeningPort(socket_, grpc::InsecureServerCredentials());
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override {
    server_->Shutdown();
    unlink((dir_ + "/s").c_str());
    rmdir(dir_.c_str());
  }

  std::string Request(int comm_size) {
    wire::TableRequest r;
    r.context.library = "Open MPI";
    r.context.library_version = "4.1.4";
    r.context.comm_size = comm_size;
    r.context.nodes = 1;
    r.context.ppn = comm_size;
    return wire::EncodeGetTableRequest(r);
  }

  FakeTuning service_;
  std::unique_ptr<grpc::Server> server_;
  std::string dir_, socket_;
  int port_ = 0;
};

TEST_F(RealServer, FetchesOverUnixSocket) {
  GrpcCallResult r = CallUnary(socket_, kMethod, Request(6), 2000, 1 << 24);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(service_.last.context().comm_size(), 6);
  EXPECT_EQ(service_.last.context().library(), "Open MPI");
  v1::GetTableResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(r.response));
  ASSERT_EQ(parsed.table().sections_size(), 1);
  EXPECT_EQ(parsed.table().sections(0).comm_size(), 6);
}

TEST_F(RealServer, FetchesOverTcpLoopback) {
  ASSERT_GT(port_, 0);
  const std::string address = "127.0.0.1:" + std::to_string(port_);
  GrpcCallResult r = CallUnary(address, kMethod, Request(3), 2000, 1 << 24);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(service_.last.context().comm_size(), 3);
  r = CallUnary("dns:///localhost:" + std::to_string(port_), kMethod, Request(5), 2000,
                1 << 24);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(service_.last.context().comm_size(), 5);
}

// Larger than HTTP/2's default 64 KiB windows and 16 KiB frames: the
// answer comes in many DATA frames without the server waiting for us.
TEST_F(RealServer, FetchesALargeTable) {
  service_.rules = 4000;
  GrpcCallResult r = CallUnary(socket_, kMethod, Request(2), 5000, 1 << 24);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_GT(r.response.size(), 100000u);
  v1::GetTableResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(r.response));
  EXPECT_EQ(parsed.table().sections(0).rules_size(), 4000);
  wire::TableMessage m;
  std::string error;
  ASSERT_TRUE(wire::DecodeGetTableResponse(r.response, &m, &error)) << error;
  EXPECT_EQ(m.sections[0].rules.size(), 4000u);
}

TEST_F(RealServer, AnswerAboveTheLimitIsRefused) {
  service_.rules = 4000;
  GrpcCallResult r = CallUnary(socket_, kMethod, Request(2), 5000, 10000);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("larger than"), std::string::npos) << r.error;
}

TEST_F(RealServer, AnErrorStatusIsAFailure) {
  service_.status = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "comm_size");
  GrpcCallResult r = CallUnary(socket_, kMethod, Request(2), 2000, 1 << 24);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.reached);
  EXPECT_NE(r.error.find("error"), std::string::npos) << r.error;
}

TEST_F(RealServer, AnUnknownMethodIsAFailure) {
  GrpcCallResult r =
      CallUnary(socket_, "/colltune.v1.Tuning/NoSuchMethod", Request(2), 2000, 1 << 24);
  EXPECT_FALSE(r.ok);
}

TEST_F(RealServer, ManyCallsInARow) {
  for (int i = 1; i <= 200; ++i) {
    GrpcCallResult r = CallUnary(socket_, kMethod, Request(i), 2000, 1 << 24);
    ASSERT_TRUE(r.ok) << i << ": " << r.error;
  }
  EXPECT_EQ(service_.last.context().comm_size(), 200);
}

TEST(GrpcCall, NoServerFailsAtOnce) {
  const std::string dir = TempDir();
  const auto start = std::chrono::steady_clock::now();
  GrpcCallResult r = CallUnary("unix:" + dir + "/none", kMethod, "", 5000, 1 << 20);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.reached);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  rmdir(dir.c_str());
}

TEST(GrpcCall, AddressForms) {
  EXPECT_TRUE(CallableDirectly("unix:/run/colltune/colltuned.sock"));
  EXPECT_TRUE(CallableDirectly("unix:///run/colltune/colltuned.sock"));
  EXPECT_TRUE(CallableDirectly("unix:relative.sock"));
  EXPECT_TRUE(CallableDirectly("head1:50051"));
  EXPECT_TRUE(CallableDirectly("dns:///head1.example.org:50051"));
  EXPECT_TRUE(CallableDirectly("ipv4:10.0.0.1:50051"));
  EXPECT_TRUE(CallableDirectly("[::1]:50051"));
  EXPECT_TRUE(CallableDirectly("ipv6:[fe80::1]:50051"));
  EXPECT_FALSE(CallableDirectly(""));
  EXPECT_FALSE(CallableDirectly("unix:"));
  EXPECT_FALSE(CallableDirectly("head1"));
  EXPECT_FALSE(CallableDirectly("head1:port"));
  EXPECT_FALSE(CallableDirectly("::1:50051"));
  EXPECT_FALSE(CallableDirectly("xds:///service"));
  EXPECT_FALSE(CallableDirectly("ipv4:10.0.0.1:1,10.0.0.2:1"));
  EXPECT_FALSE(CallableDirectly("unix:" + std::string(200, 'x')));
}

// A server on a raw unix socket that reads what the client sends and then
// does `behave` with the connection.
class RawServer {
 public:
  explicit RawServer(std::function<void(int)> behave) : dir_(TempDir()) {
    path_ = dir_ + "/raw";
    listener_ = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un sun{};
    sun.sun_family = AF_UNIX;
    snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path_.c_str());
    bind(listener_, reinterpret_cast<sockaddr*>(&sun), sizeof sun);
    listen(listener_, 4);
    thread_ = std::thread([this, behave] {
      const int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      char buf[4096];
      recv(fd, buf, sizeof buf, 0);  // the client's opening
      behave(fd);
      close(fd);
    });
  }
  ~RawServer() {
    shutdown(listener_, SHUT_RDWR);
    thread_.join();
    close(listener_);
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  std::string address() const { return "unix:" + path_; }

 private:
  std::string dir_, path_;
  int listener_ = -1;
  std::thread thread_;
};

void SendBytes(int fd, const std::string& bytes) {
  send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
}

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload,
                  uint32_t claimed_length = 0xffffffff) {
  const uint32_t n = claimed_length == 0xffffffff ? payload.size() : claimed_length;
  std::string f = {static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n),
                   static_cast<char>(type), static_cast<char>(flags),
                   static_cast<char>(stream >> 24), static_cast<char>(stream >> 16),
                   static_cast<char>(stream >> 8), static_cast<char>(stream)};
  return f + payload;
}

GrpcCallResult CallRaw(const RawServer& server, int timeout_ms = 2000) {
  return CallUnary(server.address(), kMethod, "", timeout_ms, 1 << 20);
}

TEST(GrpcCall, ServerThatNeverAnswersTimesOut) {
  RawServer server([](int) { std::this_thread::sleep_for(std::chrono::milliseconds(700)); });
  const auto start = std::chrono::steady_clock::now();
  GrpcCallResult r = CallRaw(server, 300);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.reached);
  EXPECT_GE(took, std::chrono::milliseconds(290));
  EXPECT_LT(took, std::chrono::milliseconds(600));
}

TEST(GrpcCall, ServerThatClosesIsAFailure) {
  RawServer server([](int) {});
  GrpcCallResult r = CallRaw(server);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("closed"), std::string::npos) << r.error;
}

TEST(GrpcCall, GarbageIsAFailure) {
  RawServer server([](int fd) { SendBytes(fd, "HTTP/1.1 400 Bad Request\r\n\r\n"); });
  GrpcCallResult r = CallRaw(server);
  EXPECT_FALSE(r.ok);
}

TEST(GrpcCall, OversizedFrameIsRefused) {
  RawServer server([](int fd) { SendBytes(fd, Frame(0, 0, 1, "", 1 << 23)); });
  GrpcCallResult r = CallRaw(server);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("larger"), std::string::npos) << r.error;
}

TEST(GrpcCall, DataEndingTheStreamWithoutTrailersIsAFailure) {
  RawServer server([](int fd) {
    SendBytes(fd, Frame(4, 0, 0, "") + Frame(0, 1, 1, std::string("\0\0\0\0\0", 5)));
  });
  GrpcCallResult r = CallRaw(server);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("without a status"), std::string::npos) << r.error;
}

TEST(GrpcCall, MessageLengthThatLiesIsRefused) {
  RawServer server([](int fd) {
    // A message claiming 100 bytes carrying 2, then trailers.
    SendBytes(fd, Frame(0, 0, 1, std::string("\0\0\0\0\x64xy", 7)) + Frame(1, 5, 1, ""));
  });
  GrpcCallResult r = CallRaw(server);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("not one gRPC message"), std::string::npos) << r.error;
}

TEST(GrpcCall, ResetStreamIsAFailure) {
  RawServer server([](int fd) { SendBytes(fd, Frame(3, 0, 1, std::string("\0\0\0\x08", 4))); });
  GrpcCallResult r = CallRaw(server);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("reset"), std::string::npos) << r.error;
}

TEST(GrpcCall, PaddingLongerThanTheFrameIsRefused) {
  RawServer server([](int fd) { SendBytes(fd, Frame(0, 8, 1, std::string("\x09zz", 3))); });
  GrpcCallResult r = CallRaw(server);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("malformed"), std::string::npos) << r.error;
}

TEST(GrpcCall, AWellFormedRawAnswerIsAccepted) {
  // The positive control for the raw cases above: padded DATA, a PING to
  // answer, then trailers.
  RawServer server([](int fd) {
    SendBytes(fd, Frame(4, 0, 0, "") + Frame(6, 0, 0, "12345678") +
                      Frame(0, 8, 1, std::string("\x02\0\0\0\0\x02okPP", 10)) +
                      Frame(1, 5, 1, ""));
    // Open until the client has read everything (it acknowledges SETTINGS
    // and PING on the way, which must not meet a closed socket).
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  });
  GrpcCallResult r = CallRaw(server);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.response, "ok");
}

}  // namespace
}  // namespace colltune::shim
