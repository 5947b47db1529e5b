// A gRPC server interceptor that counts every call colltuned finishes and
// times it (Metrics::ObserveRpc), so the service's methods carry no metrics
// code. StartServer (service.h) registers it.
#ifndef COLLTUNE_DAEMON_RPC_METRICS_H_
#define COLLTUNE_DAEMON_RPC_METRICS_H_

#include <memory>

#include <grpcpp/support/server_interceptor.h>

#include "daemon/metrics.h"

namespace colltune::daemon {

// One interceptor per call, made when the call starts; `metrics` must
// outlive the server.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
RpcMetricsInterceptorFactory(Metrics* metrics);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_RPC_METRICS_H_
