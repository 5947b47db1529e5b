// Defects of the MPI libraries the shim is built for, which mock-ups steer
// around: a mock-up inherits every quirk of the calls it makes, and a job
// must never fail because the shim made a call the application did not.
// Each was found by tests/mpi/differential.cc under the shim.
#ifndef COLLTUNE_SHIM_COLL_QUIRKS_H_
#define COLLTUNE_SHIM_COLL_QUIRKS_H_

#include <string_view>

#include "shim/coll/datatype.h"
#include "shim/mpi/mpi.h"

namespace colltune::shim {

// MPICH 4.0's MPI_Gather and MPI_Scatter (and its MPI_Alltoall) abort with
// "Message truncated" on messages of a datatype with gaps beyond some ten
// kilobytes, from four processes on (two for MPI_Scatter): their trees
// forward packed bytes that the receiver then refuses. Mock-ups that would
// pass such a datatype to these calls are not eligible under MPICH.
#if defined(MPICH_VERSION)
inline constexpr bool kGappedTypesBreakGatherScatter = true;
#else
inline constexpr bool kGappedTypesBreakGatherScatter = false;
#endif

// True if `layout` may be given to MPI_Gather/MPI_Scatter of this library.
inline bool GatherScatterSafe(const Layout& layout) {
  return !kGappedTypesBreakGatherScatter || layout.Contiguous();
}

// MPICH 4.0's own noncommutative Reduce_scatter_block, forced, returns
// wrong results and corrupts the heap ("double free or corruption") for
// datatypes with gaps (MPI_DOUBLE_INT). A reduction's datatype is the same
// on every rank, so under MPICH a native algorithm runs a reduction only on
// datatypes without gaps: a rank-consistent verdict.
inline bool NativeReductionTypeOk(MPI_Datatype type) {
  if (!kGappedTypesBreakGatherScatter) return true;
  Layout layout;
  return GetLayout(type, &layout) == MPI_SUCCESS && layout.Contiguous();
}

// MPICH 4.0's own MPI_Reduce_scatter algorithms, forced, where its
// fallback does not catch them (natives_test): "noncommutative" asserts
// that the communicator size is a power of two and every count equal, and
// aborts the job otherwise; "pairwise" aborts on an in-place call
// ("memcpy argument memory ranges overlap" in its pack routine). Counts,
// the size and MPI_IN_PLACE are the same on every rank: a rank-consistent
// verdict. The names are MPICH's alone (the catalogue's library bits).
inline bool NativeReduceScatterOk(std::string_view name, const int* counts, int size,
                                  bool in_place) {
  if (name == "native:noncommutative") {
    if ((size & (size - 1)) != 0) return false;
    for (int i = 1; i < size; ++i) {
      if (counts[i] != counts[0]) return false;
    }
  }
  return !(name == "native:pairwise" && in_place);
}

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_QUIRKS_H_
