#include "proto/context.h"

namespace colltune {

v1::Context ContextToProto(const JobContext& c) {
  v1::Context p;
  p.set_cluster(c.cluster);
  p.set_library(c.library);
  p.set_library_version(c.library_version);
  p.set_comm_size(c.comm_size);
  p.set_nodes(c.nodes);
  p.set_ppn(c.ppn);
  return p;
}

JobContext ContextFromProto(const v1::Context& p) {
  JobContext c;
  c.cluster = p.cluster();
  c.library = p.library();
  c.library_version = p.library_version();
  c.comm_size = p.comm_size();
  c.nodes = p.nodes();
  c.ppn = p.ppn();
  return c;
}

}  // namespace colltune
