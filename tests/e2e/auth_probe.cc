// auth_probe: sends hand-made uploads to colltuned for tests/e2e/auth_test.sh,
// with the real client code (auth/binding.h, auth/munge.h) but control over
// what the credential says: made by another munged, with a short TTL, saved
// and used again (also by another user: --credential-only saves one without
// sending it), bound to a different comm size, missing, oversized, or a
// request too large for the daemon. Prints one line per call, "OK" or
// "<GRPC_CODE>: <message>", then "summary ok=N <CODE>=N ..."; exits 0 when
// every call succeeded.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>
#include <grpcpp/grpcpp.h>

#include "auth/binding.h"
#include "auth/client_auth.h"
#include "auth/munge.h"
#include "proto/colltune.grpc.pb.h"

namespace {

const char* CodeName(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    default: return "OTHER";
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"auth_probe"};
  std::string server, job = "probe-job", run = "run-1", library = "Open MPI";
  std::string munge_socket, save_credential, use_credential, bind_library;
  int comm_size = 2, bind_comm_size = 0, ttl = 0, count = 1;
  double sleep_seconds = 0;
  size_t junk_credential = 0, pad_bytes = 0;
  bool no_credential = false, upload = false, credential_only = false;
  app.add_option("--server", server)->required();
  app.add_option("--job", job);
  app.add_option("--run", run);
  app.add_option("--library", library);
  app.add_option("--comm-size", comm_size);
  app.add_option("--munge-socket", munge_socket, "munged to make the credential with");
  app.add_option("--ttl", ttl, "credential TTL in seconds");
  app.add_option("--sleep", sleep_seconds, "wait this long between encoding and sending");
  app.add_option("--bind-comm-size", bind_comm_size, "the credential binds this comm size");
  app.add_option("--bind-library", bind_library, "the credential binds this library");
  app.add_option("--save-credential", save_credential);
  app.add_option("--use-credential", use_credential, "send this file's credential");
  app.add_option("--junk-credential", junk_credential, "send N bytes of junk as credential");
  app.add_option("--pad-bytes", pad_bytes, "pad the request's run id with N bytes");
  app.add_option("--count", count, "send N requests (new run id each)");
  app.add_flag("--no-credential", no_credential);
  app.add_flag("--upload", upload, "UploadMeasurements instead of ReportJob");
  app.add_flag("--credential-only", credential_only,
               "make the credential, write it to --save-credential, send nothing");
  CLI11_PARSE(app, argc, argv);

  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  auto stub = colltune::v1::Tuning::NewStub(grpc::CreateCustomChannel(
      server, colltune::auth::ChannelCredentialsFor(server), args));
  std::map<std::string, int> tally;
  for (int i = 0; i < count; ++i) {
    colltune::v1::Context ctx;
    ctx.set_library(library);
    ctx.set_library_version("4.1.4");
    ctx.set_comm_size(comm_size);
    ctx.set_nodes(1);
    ctx.set_ppn(comm_size);
    const std::string this_run =
        (count > 1 ? run + "-" + std::to_string(i) : run) + std::string(pad_bytes, 'x');
    colltune::v1::ReportJobRequest report;
    colltune::v1::UploadMeasurementsRequest measurements;
    colltune::auth::Binding binding;
    if (upload) {
      *measurements.mutable_context() = ctx;
      measurements.set_campaign(job);
      measurements.set_host(this_run);
      binding = colltune::auth::BindingFor(measurements);
    } else {
      *report.mutable_context() = ctx;
      report.set_job_id(job);
      report.set_run_id(this_run);
      report.set_final(true);
      report.set_ranks(comm_size);
      report.set_source("online");
      binding = colltune::auth::BindingFor(report);
    }
    if (bind_comm_size > 0) binding.comm_size = bind_comm_size;
    if (!bind_library.empty()) binding.library = bind_library;
    std::string credential;
    if (!use_credential.empty()) {
      std::ifstream in(use_credential);
      std::getline(in, credential);
    } else if (junk_credential > 0) {
      credential = "MUNGE:" + std::string(junk_credential, 'A');
    } else if (!no_credential) {
      auto made = colltune::auth::MungeEncode(
          munge_socket, colltune::auth::FormatBinding(binding), ttl);
      if (!made.ok()) {
        fprintf(stderr, "auth_probe: %s\n", made.status().ToString().c_str());
        return 2;
      }
      credential = *made;
    }
    if (!save_credential.empty()) std::ofstream(save_credential) << credential << "\n";
    if (credential_only) return 0;
    if (sleep_seconds > 0) usleep(static_cast<useconds_t>(sleep_seconds * 1e6));
    grpc::ClientContext call;
    call.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    if (!credential.empty()) call.AddMetadata(colltune::auth::kMungeHeader, credential);
    grpc::Status s;
    if (upload) {
      colltune::v1::UploadMeasurementsResponse response;
      s = stub->UploadMeasurements(&call, measurements, &response);
    } else {
      colltune::v1::ReportJobResponse response;
      s = stub->ReportJob(&call, report, &response);
    }
    const std::string code = CodeName(s.error_code());
    ++tally[code];
    if (count == 1 || !s.ok()) {
      if (count == 1 || tally[code] <= 2) {
        printf("%s%s%s\n", code.c_str(), s.ok() ? "" : ": ",
               s.error_message().substr(0, 300).c_str());
      }
    }
  }
  printf("summary");
  for (const auto& [code, n] : tally) printf(" %s=%d", code.c_str(), n);
  printf("\n");
  return tally.size() == 1 && tally.count("OK") ? 0 : 1;
}
