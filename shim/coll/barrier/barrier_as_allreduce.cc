// MPI_Barrier as MPI_Allreduce of one int: every rank's result depends on
// every rank's contribution, so no rank returns before all have entered.
//
// Cost: MPI_Allreduce(1 int); scratch: none.
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const BarrierCall& c, const CollEnv& env) {
  if (env.inter) return std::nullopt;
  return 0;
}

int Run(const BarrierCall& c, const CollEnv& env) {
  int in = 0, out = 0;
  return PMPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, env.comm);
}

}  // namespace

const AlgorithmImpl<BarrierCall> kBarrierAsAllreduce = {Algorithm::kBarrierAsAllreduce,
                                                        Need, Run};

}  // namespace colltune::shim
