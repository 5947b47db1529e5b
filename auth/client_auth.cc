#include "auth/client_auth.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "auth/munge.h"

namespace colltune::auth {

absl::Status AttachMunge(grpc::ClientContext* context, const Binding& binding) {
  if (const char* v = getenv("COLLTUNE_MUNGE"); v && std::string(v) == "0") {
    return absl::OkStatus();
  }
  std::string socket;
  if (const char* v = getenv("COLLTUNE_MUNGE_SOCKET"); v && *v) socket = v;
  struct stat st;
  const std::string path = socket.empty() ? "/run/munge/munge.socket.2" : socket;
  if (stat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) {
    if (socket.empty()) return absl::OkStatus();  // no munged here
    return absl::FailedPreconditionError("no MUNGE socket at " + socket);
  }
  absl::StatusOr<std::string> cred = MungeEncode(socket, FormatBinding(binding));
  if (!cred.ok()) return cred.status();
  context->AddMetadata(kMungeHeader, *cred);
  return absl::OkStatus();
}

std::shared_ptr<grpc::ChannelCredentials> ChannelCredentialsFor(
    const std::string& address) {
  const char* ca = getenv("COLLTUNE_TLS_CA");
  if (ca == nullptr || *ca == '\0' || address.rfind("unix:", 0) == 0) {
    return grpc::InsecureChannelCredentials();
  }
  grpc::SslCredentialsOptions options;
  std::ifstream in(ca);
  std::ostringstream pem;
  pem << in.rdbuf();
  options.pem_root_certs = pem.str();
  if (options.pem_root_certs.empty()) {
    fprintf(stderr, "colltune: cannot read the TLS CA file %s\n", ca);
    options.pem_root_certs = "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n";
  }
  return grpc::SslCredentials(options);
}

}  // namespace colltune::auth
