// Defects of the library's own collectives that the shim routes around for
// every job, table or no table: each is the library's answer being wrong,
// not slow, so correctness decides, not a measurement.
#ifndef COLLTUNE_SHIM_RUNTIME_REPAIRS_H_
#define COLLTUNE_SHIM_RUNTIME_REPAIRS_H_

#include <string>
#include <vector>

#include "common/job_context.h"
#include "common/table.h"

namespace colltune::shim {

// Rank 0 at MPI_Init, before the table is broadcast (so every rank applies
// the same repair): forces a mock-up for a collective the running library
// gets wrong in this job, unless the table or COLLTUNE_FORCE already forces
// that collective. Returns one line per repair made or declined, for the log.
std::vector<std::string> RepairLibraryDefects(const JobContext& context, int thread_level,
                                              Table* table);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_REPAIRS_H_
