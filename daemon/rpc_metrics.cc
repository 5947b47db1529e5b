#include "daemon/rpc_metrics.h"

#include <chrono>
#include <string>

#include <grpcpp/support/interceptor.h>
#include <grpcpp/support/status.h>

namespace colltune::daemon {
namespace {

namespace gx = grpc::experimental;

class RpcMetricsInterceptor final : public gx::Interceptor {
 public:
  RpcMetricsInterceptor(Metrics* metrics, const char* method)
      : metrics_(metrics),
        method_(method == nullptr ? "" : method),
        start_(std::chrono::steady_clock::now()) {}

  void Intercept(gx::InterceptorBatchMethods* methods) override {
    // The status is about to go out: the handler has finished (or gRPC
    // answered for it). Every unary call passes here once.
    if (methods->QueryInterceptionHookPoint(
            gx::InterceptionHookPoints::PRE_SEND_STATUS)) {
      const double seconds = std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start_)
                                 .count();
      metrics_->ObserveRpc(method_, static_cast<int>(methods->GetSendStatus().error_code()),
                           seconds);
    }
    methods->Proceed();
  }

 private:
  Metrics* metrics_;
  std::string method_;
  std::chrono::steady_clock::time_point start_;
};

class Factory final : public gx::ServerInterceptorFactoryInterface {
 public:
  explicit Factory(Metrics* metrics) : metrics_(metrics) {}
  gx::Interceptor* CreateServerInterceptor(gx::ServerRpcInfo* info) override {
    return new RpcMetricsInterceptor(metrics_, info->method());
  }

 private:
  Metrics* metrics_;
};

}  // namespace

std::unique_ptr<gx::ServerInterceptorFactoryInterface> RpcMetricsInterceptorFactory(
    Metrics* metrics) {
  return std::make_unique<Factory>(metrics);
}

}  // namespace colltune::daemon
