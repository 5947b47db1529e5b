// The job context rank 0 sends to the daemon: which MPI library, how many
// processes, on how many nodes and how they sit there. The benchmark uses the same detection, so
// profiles and table requests agree on what they describe.
#ifndef COLLTUNE_SHIM_RUNTIME_CONTEXT_H_
#define COLLTUNE_SHIM_RUNTIME_CONTEXT_H_

#include <string>

#include "common/job_context.h"
#include "shim/mpi/mpi.h"

namespace colltune::shim {

// Collective over `comm`. Every rank gets library and comm_size; the layout
// (nodes, ppn, placement, node_sizes) is valid at rank 0 of `comm` only. Where
// the layout could not be told (a host name unknown on some rank, a single
// process started without a launcher), the job counts as one node and, at
// rank 0, *why (if given) says so. Returns an MPI error code.
int DetectContext(MPI_Comm comm, JobContext* context, std::string* why = nullptr);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_CONTEXT_H_
