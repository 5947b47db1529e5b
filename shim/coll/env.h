// What an algorithm may use besides its call's arguments.
#ifndef COLLTUNE_SHIM_COLL_ENV_H_
#define COLLTUNE_SHIM_COLL_ENV_H_

#include <cstdint>

#include "shim/coll/scratch.h"
#include "shim/mpi/mpi.h"

namespace colltune::shim {

struct CollEnv {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  // Largest scratch need a call may have (COLLTUNE_MEM_BYTES, as broadcast by
  // rank 0, so every rank compares against the same number).
  uint64_t mem_budget = 0;
  ScratchPool* scratch = nullptr;
};

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_ENV_H_
