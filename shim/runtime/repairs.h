// Defects of the library's own collectives that the shim routes around for
// every job, table or no table: each is the library's answer being wrong,
// not slow, so correctness decides, not a measurement.
#ifndef COLLTUNE_SHIM_RUNTIME_REPAIRS_H_
#define COLLTUNE_SHIM_RUNTIME_REPAIRS_H_

#include <string>
#include <vector>

#include "common/catalog.h"
#include "common/job_context.h"
#include "common/table.h"
#include "shim/mpi/mpi.h"

namespace colltune::shim {

// MPICH's MPI_Gather and MPI_Scatter abort on data whose datatype mixes
// basic types (shim/coll/quirks.h). The algorithm every such call of `c`
// runs instead, before the table, on MPI_BYTEs (every rank takes it: the
// datatype's signature decides, and signatures match); kDefault where the
// library's call is right. COLLTUNE_FORCE for `c` goes first.
Algorithm MixedTypesRepair(Collective c);

// Whether a call of data of `type` needs MixedTypesRepair: its signature
// mixes basic types, and it is not a type of absolute addresses (which the
// shim never changes).
bool NeedsMixedTypesRepair(MPI_Datatype type);

// Rank 0 at MPI_Init, before the table is broadcast (so every rank applies
// the same repair): forces a mock-up for a collective the running library
// gets wrong in this job, unless the table or COLLTUNE_FORCE already forces
// that collective. Returns one line per repair made or declined, for the log
// (MixedTypesRepair's included: every rank applies it on its own).
std::vector<std::string> RepairLibraryDefects(const JobContext& context, int thread_level,
                                              Table* table);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_REPAIRS_H_
