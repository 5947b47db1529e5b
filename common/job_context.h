// What a job is, as far as tuning goes: the one definition of the context
// that the shim detects, table requests and job reports carry, profiles are
// keyed by and the CLI and the web view show. proto/context.h converts it to
// and from colltune.v1.Context (checked field for field by
// tests/unit/context_test.cc); the shim's hand-encoded requests
// (common/table_wire.h) take it as it is.
#ifndef COLLTUNE_COMMON_JOB_CONTEXT_H_
#define COLLTUNE_COMMON_JOB_CONTEXT_H_

#include <cstdint>
#include <string>
#include <tuple>

namespace colltune {

struct JobContext {
  std::string cluster;          // "": the daemon's own (colltuned --cluster)
  std::string library;          // "Open MPI", "MPICH", ...
  std::string library_version;  // "4.1.4"
  int32_t comm_size = 0;        // processes in the communicator
  int32_t nodes = 0;            // nodes the communicator spans
  int32_t ppn = 0;              // most of its processes on one node
  // How ranks are placed on the nodes (common/layout.h): "block", "round_robin"
  // or "scattered"; "" where it was not recorded.
  std::string placement;
  // Processes per node where nodes differ ("3+1", "4*3+2"); "" when every
  // node holds ppn, or where it was not recorded.
  std::string node_sizes;

  bool operator==(const JobContext& o) const {
    return std::tie(cluster, library, library_version, comm_size, nodes, ppn, placement,
                    node_sizes) == std::tie(o.cluster, o.library, o.library_version,
                                            o.comm_size, o.nodes, o.ppn, o.placement,
                                            o.node_sizes);
  }
  bool operator!=(const JobContext& o) const { return !(*this == o); }
};

}  // namespace colltune

#endif  // COLLTUNE_COMMON_JOB_CONTEXT_H_
