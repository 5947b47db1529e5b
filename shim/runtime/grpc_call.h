// One unary gRPC call over cleartext HTTP/2, made in the calling thread and
// bounded by a deadline: how rank 0 fetches its table at MPI_Init.
//
// Why not the agent (agent.h) for this: starting `colltune`, a program
// linked with gRPC, costs 25-60 ms of CPU (dynamic linking of some fifty
// libraries, gRPC's start-up threads), and MPI_Init is when every core of the
// node is busy starting the job, so that time was added to every job's start.
// This call costs well under a millisecond. Why not the gRPC library in the
// job: agent.h (threads, fork hazards, symbols in other people's programs);
// this is a few hundred lines with no thread, no signal and no global state.
//
// It speaks the part of HTTP/2 (RFC 9113) one call needs, with prior
// knowledge (what gRPC servers accept): the client preface, its own headers
// as HPACK literals (RFC 7541), the request as one DATA frame, SETTINGS and
// PING acknowledged, flow-control windows opened wide up front so the server
// never waits for us. The server's header blocks are not decoded: a unary
// gRPC server sends its message only with status OK, so a complete message
// followed by the trailers is success, and anything else is a failure whose
// reason the agent (`colltune table`) can tell in words.
#ifndef COLLTUNE_SHIM_RUNTIME_GRPC_CALL_H_
#define COLLTUNE_SHIM_RUNTIME_GRPC_CALL_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace colltune::shim {

struct GrpcCallResult {
  bool ok = false;
  // A connection was made: a failure after it is the server's answer (an
  // error status, a TLS server, nonsense), not its absence.
  bool reached = false;
  // The deadline passed before the answer (the server may still act on the
  // request).
  bool timed_out = false;
  std::string response;  // the serialized response message when ok
  std::string error;     // why not ok
};

// True for the server address forms CallUnary can reach: "unix:PATH",
// "unix:///PATH", "HOST:PORT", "[V6ADDR]:PORT", "dns:///HOST:PORT",
// "ipv4:ADDR:PORT", "ipv6:[ADDR]:PORT". Other gRPC target forms (custom
// resolvers, "xds:...") need the agent.
bool CallableDirectly(std::string_view address);

// Calls `method` ("/package.Service/Method") at `address` with the serialized
// `request`, within `timeout_ms` from now (also sent as grpc-timeout, so the
// server gives up too). A response larger than `max_response` bytes is an
// error.
GrpcCallResult CallUnary(std::string_view address, std::string_view method,
                         std::string_view request, int timeout_ms,
                         size_t max_response);

// CallUnary in two halves, so the caller can work while the server answers:
// StartUnary connects and sends the request (within `timeout_ms`, also the
// grpc-timeout the server sees); FinishUnary reads the answer within its own
// `timeout_ms` and closes the connection. A failed start carries its result
// (FinishUnary returns it). AbandonUnary closes a call never finished.
struct PendingCall {
  int fd = -1;
  GrpcCallResult result;
};
PendingCall StartUnary(std::string_view address, std::string_view method,
                       std::string_view request, int timeout_ms);
GrpcCallResult FinishUnary(PendingCall* call, int timeout_ms, size_t max_response);
void AbandonUnary(PendingCall* call);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_GRPC_CALL_H_
