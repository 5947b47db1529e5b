// Who sent an upload or a job report.
#ifndef COLLTUNE_AUTH_UPLOADER_H_
#define COLLTUNE_AUTH_UPLOADER_H_

#include <cstdint>

namespace colltune::auth {

// The uid and gid munged vouched for, or the unix socket's peer
// credentials; -1 when the daemon identified nobody (colltuned --auth none
// over TCP with --insecure-accept-anonymous-uploads).
struct Uploader {
  int64_t uid = -1;
  int64_t gid = -1;
};

}  // namespace colltune::auth

#endif  // COLLTUNE_AUTH_UPLOADER_H_
