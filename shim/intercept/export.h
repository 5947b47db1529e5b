// Marks the MPI entry points the shim defines; everything else in the shim
// is hidden (compiled with -fvisibility=hidden, linked with shim/exports.map).
#ifndef COLLTUNE_SHIM_INTERCEPT_EXPORT_H_
#define COLLTUNE_SHIM_INTERCEPT_EXPORT_H_

#include "shim/mpi/mpi.h"

#define COLLTUNE_EXPORT extern "C" __attribute__((visibility("default")))

#endif  // COLLTUNE_SHIM_INTERCEPT_EXPORT_H_
