#include "auth/binding.h"

#include <openssl/sha.h>

#include <cstdio>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace colltune::auth {
namespace {

constexpr std::string_view kMagic = "colltune-credential 1";

// Printable ASCII without line breaks: what the payload's lines may hold.
std::string Clean(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 256)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

}  // namespace

std::string Sha256Hex(std::string_view bytes) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), md);
  std::string out;
  char hex[3];
  for (unsigned char b : md) {
    snprintf(hex, sizeof hex, "%02x", b);
    out += hex;
  }
  return out;
}

std::string RequestDigest(const google::protobuf::Message& request) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    request.SerializeToCodedStream(&coded);
  }
  return Sha256Hex(bytes);
}

Binding BindingFor(const v1::ReportJobRequest& r) {
  return {"ReportJob", r.job_id(), r.context().library(), r.context().comm_size(),
          RequestDigest(r)};
}

Binding BindingFor(const v1::UploadMeasurementsRequest& r) {
  return {"UploadMeasurements", r.campaign(), r.context().library(),
          r.context().comm_size(), RequestDigest(r)};
}

Binding AdminBindingFor(std::string_view rpc, int64_t profile_id,
                        const google::protobuf::Message& request) {
  return {std::string(rpc), std::to_string(profile_id), "", 0,
          RequestDigest(request)};
}

std::string FormatBinding(const Binding& b) {
  return std::string(kMagic) + "\nrpc " + Clean(b.rpc) + "\nsubject " +
         Clean(b.subject) + "\nlibrary " + Clean(b.library) + "\ncomm_size " +
         std::to_string(b.comm_size) + "\ndigest " + Clean(b.digest) + "\n";
}

absl::StatusOr<Binding> ParseBinding(std::string_view payload) {
  const auto bad = [](std::string_view why) {
    return absl::UnauthenticatedError(
        "the MUNGE credential was not made for a colltune request (" +
        std::string(why) + ")");
  };
  Binding b;
  bool seen[5] = {};
  size_t pos = 0;
  int line_no = 0;
  while (pos < payload.size()) {
    size_t end = payload.find('\n', pos);
    if (end == std::string_view::npos) end = payload.size();
    const std::string_view line = payload.substr(pos, end - pos);
    pos = end + 1;
    if (line_no++ == 0) {
      if (line != kMagic) return bad("no colltune-credential header");
      continue;
    }
    const size_t sp = line.find(' ');
    const std::string_view key = line.substr(0, sp);
    const std::string_view value =
        sp == std::string_view::npos ? std::string_view() : line.substr(sp + 1);
    int field = -1;
    if (key == "rpc") {
      field = 0, b.rpc = value;
    } else if (key == "subject") {
      field = 1, b.subject = value;
    } else if (key == "library") {
      field = 2, b.library = value;
    } else if (key == "comm_size") {
      field = 3;
      int64_t n = 0;
      if (value.empty() || value.size() > 12) return bad("bad comm_size");
      for (char c : value) {
        if (c < '0' || c > '9') return bad("bad comm_size");
        n = n * 10 + (c - '0');
      }
      b.comm_size = n;
    } else if (key == "digest") {
      field = 4, b.digest = value;
    } else {
      return bad("unknown line '" + Clean(key) + "'");
    }
    if (seen[field]) return bad("'" + std::string(key) + "' twice");
    seen[field] = true;
  }
  if (line_no == 0) return bad("empty payload");
  for (bool s : seen) {
    if (!s) return bad("incomplete payload");
  }
  return b;
}

absl::Status CheckBinding(const Binding& credential, const Binding& request) {
  const auto differs = [](std::string_view what, std::string_view cred,
                          std::string_view req) {
    return absl::PermissionDeniedError(
        "the MUNGE credential was made for another request: it binds " +
        std::string(what) + " '" + Clean(cred) + "', the request has '" +
        Clean(req) + "'");
  };
  if (credential.rpc != request.rpc) return differs("rpc", credential.rpc, request.rpc);
  if (credential.subject != request.subject) {
    return differs(request.rpc == "ReportJob"            ? "job id"
                   : request.rpc == "UploadMeasurements" ? "campaign"
                                                         : "profile",
                   credential.subject, request.subject);
  }
  if (credential.library != request.library) {
    return differs("library", credential.library, request.library);
  }
  if (credential.comm_size != request.comm_size) {
    return differs("comm_size", std::to_string(credential.comm_size),
                   std::to_string(request.comm_size));
  }
  if (credential.digest != request.digest) {
    return absl::PermissionDeniedError(
        "the MUNGE credential was made for another request: the request's "
        "SHA-256 differs from the one it binds (the request was changed)");
  }
  return absl::OkStatus();
}

}  // namespace colltune::auth
