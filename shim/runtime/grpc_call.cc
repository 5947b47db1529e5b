#include "shim/runtime/grpc_call.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace colltune::shim {
namespace {

// HTTP/2 frame types and flags (RFC 9113 §6).
enum FrameType : uint8_t {
  kData = 0,
  kHeaders = 1,
  kRstStream = 3,
  kSettings = 4,
  kPing = 6,
  kGoaway = 7,
  kWindowUpdate = 8,
};
constexpr uint8_t kEndStream = 0x1;
constexpr uint8_t kAck = 0x1;
constexpr uint8_t kEndHeaders = 0x4;
constexpr uint8_t kPadded = 0x8;
constexpr uint32_t kStream = 1;  // our one call
// Frames larger than this are refused: we never raise the default
// SETTINGS_MAX_FRAME_SIZE (16 KiB), so a server must not send them.
constexpr uint32_t kMaxFrame = 16384;
// The receive window we grant, on the stream and on the connection.
constexpr uint32_t kWindow = 1u << 30;

int64_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void Put32(uint32_t v, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}

uint32_t Get32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

void PutFrame(FrameType type, uint8_t flags, uint32_t stream, std::string_view payload,
              std::string* out) {
  const uint32_t n = static_cast<uint32_t>(payload.size());
  out->push_back(static_cast<char>(n >> 16));
  out->push_back(static_cast<char>(n >> 8));
  out->push_back(static_cast<char>(n));
  out->push_back(static_cast<char>(type));
  out->push_back(static_cast<char>(flags));
  Put32(stream, out);
  out->append(payload);
}

// An HPACK integer with an N-bit prefix (RFC 7541 §5.1) after `first`'s
// high bits.
void PutHpackInt(uint32_t v, int prefix_bits, uint8_t first, std::string* out) {
  const uint32_t max = (1u << prefix_bits) - 1;
  if (v < max) {
    out->push_back(static_cast<char>(first | v));
    return;
  }
  out->push_back(static_cast<char>(first | max));
  v -= max;
  while (v >= 128) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutHpackString(std::string_view s, std::string* out) {
  PutHpackInt(static_cast<uint32_t>(s.size()), 7, 0, out);  // not Huffman-coded
  out->append(s);
}

// A literal header field without indexing whose name is static table entry
// `index`, or a new name when `index` is 0 (RFC 7541 §6.2.2).
void PutHeader(uint32_t index, std::string_view name, std::string_view value,
               std::string* out) {
  PutHpackInt(index, 4, 0, out);
  if (index == 0) PutHpackString(name, out);
  PutHpackString(value, out);
}

struct Target {
  bool unix_socket = false;
  std::string path;  // unix
  std::string host;  // tcp, without brackets
  std::string port;
};

bool ParseTarget(std::string_view address, Target* t) {
  auto starts = [&](std::string_view prefix) {
    if (address.substr(0, prefix.size()) != prefix) return false;
    address.remove_prefix(prefix.size());
    return true;
  };
  if (starts("unix://")) {
    // unix:///abs/path: the authority is empty.
    if (address.empty() || address[0] != '/') return false;
    t->unix_socket = true;
    t->path = std::string(address);
    return t->path.size() < sizeof(sockaddr_un{}.sun_path);
  }
  if (starts("unix:")) {
    t->unix_socket = true;
    t->path = std::string(address);
    return !t->path.empty() && t->path.size() < sizeof(sockaddr_un{}.sun_path);
  }
  if (!starts("dns:///") && !starts("ipv4:") && !starts("ipv6:")) {
    if (address.find("://") != std::string_view::npos) return false;
  }
  if (address.find(',') != std::string_view::npos) return false;  // address lists
  if (!address.empty() && address[0] == '[') {
    const size_t close = address.find(']');
    if (close == std::string_view::npos || close + 1 >= address.size() ||
        address[close + 1] != ':') {
      return false;
    }
    t->host = std::string(address.substr(1, close - 1));
    t->port = std::string(address.substr(close + 2));
  } else {
    const size_t colon = address.rfind(':');
    if (colon == std::string_view::npos ||
        address.find(':') != colon) {  // a bare IPv6 address is ambiguous
      return false;
    }
    t->host = std::string(address.substr(0, colon));
    t->port = std::string(address.substr(colon + 1));
  }
  if (t->host.empty() || t->port.empty() || t->port.size() > 5) return false;
  for (char c : t->port) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

constexpr char kNoAnswerInTime[] = "no answer in time";

// Waits until `fd` is ready for `events` or the deadline passes.
bool WaitFor(int fd, short events, int64_t deadline, std::string* error) {
  for (;;) {
    const int64_t left = deadline - NowMs();
    if (left <= 0) {
      *error = kNoAnswerInTime;
      return false;
    }
    pollfd p{fd, events, 0};
    const int n = poll(&p, 1, static_cast<int>(left));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) {
      *error = std::string("poll: ") + strerror(errno);
      return false;
    }
  }
}

// A connected non-blocking socket, or -1 with *error set.
int ConnectSocket(int family, const sockaddr* addr, socklen_t len, int64_t deadline,
                  std::string* error) {
  const int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + strerror(errno);
    return -1;
  }
  if (connect(fd, addr, len) != 0) {
    if (errno != EINPROGRESS && errno != EAGAIN && errno != EINTR) {
      *error = std::string("connect: ") + strerror(errno);
      close(fd);
      return -1;
    }
    if (!WaitFor(fd, POLLOUT, deadline, error)) {
      close(fd);
      return -1;
    }
    int err = 0;
    socklen_t n = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &n);
    if (err != 0) {
      *error = std::string("connect: ") + strerror(err);
      close(fd);
      return -1;
    }
  }
  if (family != AF_UNIX) {
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return fd;
}

int Connect(const Target& t, int64_t deadline, std::string* error) {
  if (t.unix_socket) {
    sockaddr_un sun{};
    sun.sun_family = AF_UNIX;
    memcpy(sun.sun_path, t.path.data(), t.path.size());
    return ConnectSocket(AF_UNIX, reinterpret_cast<const sockaddr*>(&sun), sizeof sun,
                         deadline, error);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(t.host.c_str(), t.port.c_str(), &hints, &found);
  if (rc != 0) {
    *error = "cannot resolve " + t.host + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ConnectSocket(a->ai_family, a->ai_addr, a->ai_addrlen, deadline, error);
  }
  freeaddrinfo(found);
  return fd;
}

bool SendAll(int fd, std::string_view bytes, int64_t deadline, std::string* error) {
  while (!bytes.empty()) {
    const ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!WaitFor(fd, POLLOUT, deadline, error)) return false;
    } else {
      *error = std::string("send: ") + strerror(errno);
      return false;
    }
  }
  return true;
}

// Everything the call sends before reading: preface, settings, window,
// headers and the request.
std::string Opening(const Target& t, std::string_view method, std::string_view request,
                    int timeout_ms) {
  std::string out = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  std::string settings;
  auto setting = [&](uint16_t id, uint32_t value) {
    settings.push_back(static_cast<char>(id >> 8));
    settings.push_back(static_cast<char>(id));
    Put32(value, &settings);
  };
  setting(0x2, 0);        // SETTINGS_ENABLE_PUSH
  setting(0x4, kWindow);  // SETTINGS_INITIAL_WINDOW_SIZE
  PutFrame(kSettings, 0, 0, settings, &out);
  std::string increment;
  Put32(kWindow - 65535, &increment);  // the connection's window, to kWindow
  PutFrame(kWindowUpdate, 0, 0, increment, &out);

  std::string block;
  block.push_back(static_cast<char>(0x83));  // :method POST (static 3)
  block.push_back(static_cast<char>(0x86));  // :scheme http (static 6)
  PutHeader(4, "", method, &block);          // :path
  PutHeader(1, "", t.unix_socket ? std::string("localhost") : t.host + ":" + t.port,
            &block);                                   // :authority
  PutHeader(31, "", "application/grpc", &block);       // content-type
  PutHeader(0, "te", "trailers", &block);
  PutHeader(0, "grpc-timeout", std::to_string(timeout_ms) + "m", &block);
  PutHeader(58, "", "colltune-shim", &block);          // user-agent
  PutFrame(kHeaders, kEndHeaders, kStream, block, &out);

  // One gRPC message: not compressed, its length, its bytes.
  std::string message(1, '\0');
  Put32(static_cast<uint32_t>(request.size()), &message);
  message.append(request);
  for (size_t at = 0; at < message.size(); at += kMaxFrame) {
    const bool last = at + kMaxFrame >= message.size();
    PutFrame(kData, last ? kEndStream : 0, kStream,
             std::string_view(message).substr(at, kMaxFrame), &out);
  }
  return out;
}

// Reads the server's frames until our stream ends: collects its DATA and
// answers what HTTP/2 requires an answer to.
bool ReadAnswer(int fd, int64_t deadline, size_t max_body, std::string* body,
                std::string* error) {
  std::string in;
  size_t at = 0;  // start of the next frame in `in`
  char buf[65536];
  for (;;) {
    while (in.size() - at >= 9) {
      const auto* h = reinterpret_cast<const unsigned char*>(in.data() + at);
      const uint32_t length = (uint32_t{h[0]} << 16) | (uint32_t{h[1]} << 8) | h[2];
      const uint8_t type = h[3], flags = h[4];
      const uint32_t stream = Get32(h + 5) & 0x7fffffff;
      if (length > kMaxFrame) {
        *error = "the server sent a frame larger than allowed";
        return false;
      }
      if (in.size() - at < 9 + length) break;
      const auto* p = h + 9;
      std::string reply;
      switch (type) {
        case kData:
          if (stream == kStream) {
            uint32_t pad = 0, skip = 0;
            if (flags & kPadded) {
              if (length < 1 || p[0] >= length) {
                *error = "malformed DATA frame";
                return false;
              }
              pad = p[0];
              skip = 1;
            }
            if (body->size() + length > max_body + 5) {
              *error = "answer larger than " + std::to_string(max_body) + " bytes";
              return false;
            }
            body->append(reinterpret_cast<const char*>(p + skip), length - skip - pad);
            if (flags & kEndStream) {
              *error = "the server ended the call without a status";
              return false;
            }
          }
          break;
        case kHeaders:
          if (stream == kStream && (flags & kEndStream)) return true;  // trailers
          break;
        case kRstStream:
          if (stream == kStream) {
            *error = "the server reset the call (HTTP/2 error " +
                     std::to_string(length >= 4 ? Get32(p) : 0) + ")";
            return false;
          }
          break;
        case kSettings:
          if (!(flags & kAck)) PutFrame(kSettings, kAck, 0, "", &reply);
          break;
        case kPing:
          if (!(flags & kAck) && length == 8) {
            PutFrame(kPing, kAck, 0, std::string_view(reinterpret_cast<const char*>(p), 8),
                     &reply);
          }
          break;
        case kGoaway:
          if (length >= 8 && (Get32(p) & 0x7fffffff) < kStream) {
            *error = "the server refused the call (HTTP/2 error " +
                     std::to_string(Get32(p + 4)) + ")";
            return false;
          }
          break;
        default:
          break;  // WINDOW_UPDATE, PRIORITY, CONTINUATION, unknown: nothing to do
      }
      // A reply that cannot be sent (the server closed) is no reason to drop
      // frames already received: the answer may be among them.
      std::string ignored;
      if (!reply.empty()) SendAll(fd, reply, deadline, &ignored);
      at += 9 + length;
    }
    if (at > 0) {
      in.erase(0, at);
      at = 0;
    }
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      in.append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      *error = "the server closed the connection before answering";
      return false;
    } else if (errno == EAGAIN || errno == EINTR) {
      if (!WaitFor(fd, POLLIN, deadline, error)) return false;
    } else {
      *error = std::string("recv: ") + strerror(errno);
      return false;
    }
  }
}

}  // namespace

bool CallableDirectly(std::string_view address) {
  Target t;
  return ParseTarget(address, &t);
}

PendingCall StartUnary(std::string_view address, std::string_view method,
                       std::string_view request, int timeout_ms) {
  PendingCall call;
  const int64_t deadline = NowMs() + timeout_ms;
  Target target;
  if (!ParseTarget(address, &target)) {
    call.result.error = "unsupported address " + std::string(address.substr(0, 200));
    return call;
  }
  const int fd = Connect(target, deadline, &call.result.error);
  if (fd < 0) return call;
  call.result.reached = true;
  if (!SendAll(fd, Opening(target, method, request, timeout_ms), deadline,
               &call.result.error)) {
    close(fd);
    return call;
  }
  call.fd = fd;
  return call;
}

GrpcCallResult FinishUnary(PendingCall* call, int timeout_ms, size_t max_response) {
  GrpcCallResult result = std::move(call->result);
  call->result = GrpcCallResult();
  if (call->fd < 0) return result;
  const int fd = call->fd;
  call->fd = -1;
  std::string body;
  const bool answered = ReadAnswer(fd, NowMs() + timeout_ms, max_response, &body, &result.error);
  close(fd);
  if (!answered) {
    result.timed_out = result.error == kNoAnswerInTime;
    return result;
  }
  // Exactly one uncompressed message: a unary call's whole answer.
  if (body.empty()) {
    result.error = "the daemon answered with an error (`colltune table` tells which)";
    return result;
  }
  const auto* b = reinterpret_cast<const unsigned char*>(body.data());
  if (body.size() < 5 || b[0] != 0 || Get32(b + 1) != body.size() - 5) {
    result.error = "the daemon's answer is not one gRPC message";
    return result;
  }
  result.response = body.substr(5);
  result.ok = true;
  return result;
}

void AbandonUnary(PendingCall* call) {
  if (call->fd >= 0) close(call->fd);
  call->fd = -1;
}

GrpcCallResult CallUnary(std::string_view address, std::string_view method,
                         std::string_view request, int timeout_ms, size_t max_response) {
  const int64_t deadline = NowMs() + timeout_ms;
  PendingCall call = StartUnary(address, method, request, timeout_ms);
  return FinishUnary(&call, static_cast<int>(std::max<int64_t>(0, deadline - NowMs())),
                     max_response);
}

}  // namespace colltune::shim
