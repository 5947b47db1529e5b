// MPI_Exscan's mock-ups (docs/algorithms.md, "Issue 16").
#ifndef COLLTUNE_SHIM_COLL_EXSCAN_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_EXSCAN_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<ExscanCall> kExscanAsScanShift;

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_EXSCAN_ALGORITHMS_H_
