// colltune.v1.Context <-> JobContext (common/job_context.h), for the parts
// that speak protobuf: the daemon, the CLI, the benchmark and the clients.
#ifndef COLLTUNE_PROTO_CONTEXT_H_
#define COLLTUNE_PROTO_CONTEXT_H_

#include "common/job_context.h"
#include "proto/colltune.pb.h"

namespace colltune {

v1::Context ContextToProto(const JobContext& c);
JobContext ContextFromProto(const v1::Context& c);

}  // namespace colltune

#endif  // COLLTUNE_PROTO_CONTEXT_H_
