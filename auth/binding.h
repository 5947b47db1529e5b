// What a MUNGE credential on an upload says about the request it travels
// with. The client puts a small text payload into the credential:
//
//   colltune-credential 1
//   rpc ReportJob
//   subject slurm:1234        (ReportJob: the job id; UploadMeasurements: the
//                              campaign label; admin calls: the profile id)
//   library Open MPI          (the request's context; empty for admin calls)
//   comm_size 4
//   digest <SHA-256, hex, of the request's deterministic serialization>
//
// The daemon decodes the credential (munged vouches for the uid and gid and
// that nobody changed the payload), rebuilds the same binding from the
// request it received and compares field by field: a credential made for
// one request cannot carry another (a different job, comm size, library or
// any other byte of the request), and munged itself refuses a credential
// used twice. The named fields come first so that a mismatch says what
// differs; the digest covers everything else.
#ifndef COLLTUNE_AUTH_BINDING_H_
#define COLLTUNE_AUTH_BINDING_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "proto/colltune.pb.h"

namespace colltune::auth {

// The gRPC metadata key that carries the credential (MUNGE's base64 text).
inline constexpr char kMungeHeader[] = "x-colltune-munge";
// Credentials longer than this are refused before munged sees them.
inline constexpr size_t kMaxCredentialBytes = 4096;

struct Binding {
  std::string rpc;      // "ReportJob", "UploadMeasurements", "Pin", ...
  std::string subject;  // job id, campaign label, or profile id
  std::string library;
  int64_t comm_size = 0;
  std::string digest;   // hex SHA-256 of the request

  bool operator==(const Binding& o) const {
    return rpc == o.rpc && subject == o.subject && library == o.library &&
           comm_size == o.comm_size && digest == o.digest;
  }
};

std::string Sha256Hex(std::string_view bytes);
// SHA-256 of the message's deterministic serialization.
std::string RequestDigest(const google::protobuf::Message& request);

Binding BindingFor(const v1::ReportJobRequest& r);
Binding BindingFor(const v1::UploadMeasurementsRequest& r);
// Administrative calls: the rpc, the profile and the request's digest.
Binding AdminBindingFor(std::string_view rpc, int64_t profile_id,
                        const google::protobuf::Message& request);

std::string FormatBinding(const Binding& b);
// UNAUTHENTICATED when the payload is not a binding
// (a credential made for something else).
absl::StatusOr<Binding> ParseBinding(std::string_view payload);

// OK if the credential's binding is the request's; else PERMISSION_DENIED
// naming the first field that differs (the credential is genuine but was
// made for another request).
absl::Status CheckBinding(const Binding& credential, const Binding& request);

}  // namespace colltune::auth

#endif  // COLLTUNE_AUTH_BINDING_H_
