// Where rank 0 gets the decision table at MPI_Init, in order:
//   COLLTUNE_FORCE (per collective, on top of whatever table follows),
//   COLLTUNE_TABLE (a file),
//   the daemon at COLLTUNE_SERVER, within COLLTUNE_TIMEOUT_MS, with one
//     gRPC call of the shim's own (grpc_call.h; through the agent for
//     address forms it does not know, for TLS (COLLTUNE_TLS_CA), and when
//     the daemon was reached but gave no table, so the agent can say why) -
//     a good answer is also
//     written to the cache,
//   the cache of the daemon's last good answer for this context,
//   nothing (every collective runs the library's default).
// A source that fails is reported and the next one is tried; nothing here can
// fail or stall the job beyond the deadline.
#ifndef COLLTUNE_SHIM_RUNTIME_TABLE_SOURCE_H_
#define COLLTUNE_SHIM_RUNTIME_TABLE_SOURCE_H_

#include <string>

#include "common/table.h"
#include "shim/runtime/config.h"
#include "shim/runtime/context.h"

namespace colltune::shim {

struct AcquiredTable {
  Table table;
  std::string source;  // e.g. "daemon unix:/run/colltune.sock", "none"
};

AcquiredTable AcquireTable(const Config& config, const JobContext& context);

// Called on entering MPI_Init, before the library starts: in the process
// its launcher names rank 0 (mpirun's and Hydra's environment), when the
// daemon would be asked directly, sends the table request for the context
// the launcher describes, so the daemon answers while MPI starts (100-300
// ms here, against a few ms for the call). AcquireTable then reads that
// answer if MPI's context is the one guessed, and asks again if not. Does
// nothing elsewhere; never blocks beyond COLLTUNE_TIMEOUT_MS.
void PrefetchTable();

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_TABLE_SOURCE_H_
