// Defects of the MPI libraries the shim is built for, which mock-ups steer
// around: a mock-up inherits every quirk of the calls it makes, and a job
// must never fail because the shim made a call the application did not.
// Each was found by tests/mpi/differential.cc under the shim. The defects of
// the libraries' own algorithms, forced, are common/quirks.h's table.
#ifndef COLLTUNE_SHIM_COLL_QUIRKS_H_
#define COLLTUNE_SHIM_COLL_QUIRKS_H_

#include "shim/coll/datatype.h"
#include "shim/mpi/mpi.h"

namespace colltune::shim {

// MPICH 4.0's MPI_Gather and MPI_Scatter (and its MPI_Alltoall) abort with
// "Message truncated" on messages of a datatype with gaps beyond some ten
// kilobytes, from four processes on (two for MPI_Scatter): their trees
// forward packed bytes that the receiver then refuses. Mock-ups that would
// pass such a datatype to these calls are not eligible under MPICH. (The
// types that showed it mixed basic types, MPI_DOUBLE_INT and a padded
// struct; gapped types of one basic type passed when measured later, below.
// The rule stays the wider one.)
#if defined(MPICH_VERSION)
inline constexpr bool kGappedTypesBreakGatherScatter = true;
#else
inline constexpr bool kGappedTypesBreakGatherScatter = false;
#endif

// Hit by the library's own calls (measured with 4.0.2 from a plain C
// program, 2 to 4 processes, blocks of 1 KB to 1 MB): MPI_Gather and
// MPI_Scatter abort with "Message truncated" on data whose datatype mixes
// basic types, from about 10 KB a block: a struct of int and double with its
// padding, MPI_DOUBLE_INT, and a dense 12-byte {int, double} alike (a dense
// 16-byte {int, int, double} passed). MPI_Scatter fails at any root but 0
// on 2 or 3 processes and at every root on 4, MPI_Gather on 4. Types of one
// basic type pass, gaps or not, and so do the other collectives. The shim
// repairs such calls (shim/runtime/repairs.h).
#if defined(MPICH_VERSION)
inline constexpr bool kMixedTypesBreakGatherScatter = true;
#else
inline constexpr bool kMixedTypesBreakGatherScatter = false;
#endif

// True if `layout` may be given to MPI_Gather/MPI_Scatter of this library.
inline bool GatherScatterSafe(const Layout& layout) {
  return !kGappedTypesBreakGatherScatter || layout.Contiguous();
}

// Whether `type` has gaps (a reduction's datatype: the same on every rank).
inline bool HasGaps(MPI_Datatype type) {
  Layout layout;
  return GetLayout(type, &layout) != MPI_SUCCESS || !layout.Contiguous();
}

// The same for kFormShiftedType: the data does not start at the type's origin
// (true lower bound not 0), or the type cannot be read.
inline bool HasShiftedData(MPI_Datatype type) {
  Layout layout;
  return GetLayout(type, &layout) != MPI_SUCCESS || layout.true_lb != 0;
}

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_QUIRKS_H_
