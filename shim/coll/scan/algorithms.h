// MPI_Scan's mock-up (seed 004, GL20).
#ifndef COLLTUNE_SHIM_COLL_SCAN_ALGORITHMS_H_
#define COLLTUNE_SHIM_COLL_SCAN_ALGORITHMS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

extern const AlgorithmImpl<ScanCall> kScanAsExscanReducelocal;

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_SCAN_ALGORITHMS_H_
