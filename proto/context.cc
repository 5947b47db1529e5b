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
  p.set_placement(c.placement);
  p.set_node_sizes(c.node_sizes);
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
  c.placement = p.placement();
  c.node_sizes = p.node_sizes();
  return c;
}

}  // namespace colltune
