// What the Fortran entry points share: argument conversion and the library's
// Fortran sentinels.
//
// Fortran passes every argument by address; handles are INTEGERs (mpi_f08's
// handle types are a one-integer derived type, the same in memory), converted
// with the library's MPI_*_f2c. Fortran's MPI_IN_PLACE and MPI_BOTTOM are not
// C's: they are addresses of variables of the library (Open MPI: the common
// blocks mpi_fortran_in_place_ and mpi_fortran_bottom_, which the program's
// own copies shadow), so a buffer at one of those addresses becomes C's
// sentinel. IERROR receives the C return code (the same error classes in both
// languages); mpi_f08 makes it optional, hence NULL when omitted.
#ifndef COLLTUNE_SHIM_FORTRAN_FORTRAN_H_
#define COLLTUNE_SHIM_FORTRAN_FORTRAN_H_

#include "shim/mpi/mpi.h"
#include "shim/mpi/pmpi.h"

namespace colltune::shim::fortran {

// A buffer argument where MPI forbids MPI_IN_PLACE: the library's own
// binding passes Fortran's sentinel on as an ordinary address, and so does
// the shim (a misuse then fails, or not, exactly as without the shim).
inline void* BufferNotInPlace(void* buf) {
  for (const void* s : pmpi::fortran_sentinels.bottom) {
    if (s != nullptr && buf == s) return MPI_BOTTOM;
  }
  return buf;
}

inline void* Buffer(void* buf) {
  for (const void* s : pmpi::fortran_sentinels.in_place) {
    if (s != nullptr && buf == s) return MPI_IN_PLACE;
  }
  for (const void* s : pmpi::fortran_sentinels.bottom) {
    if (s != nullptr && buf == s) return MPI_BOTTOM;
  }
  return buf;
}

// MPI_Fint and int are the same type in both libraries the shim is built
// for (4 bytes), so INTEGER arrays are int arrays.
static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is not an int");
inline const int* Ints(const MPI_Fint* a) { return reinterpret_cast<const int*>(a); }

MPI_Datatype TypeOf(MPI_Fint f);
MPI_Op OpOf(MPI_Fint f);
MPI_Comm CommOf(MPI_Fint f);

inline void SetError(MPI_Fint* ierror, int rc) {
  if (ierror != nullptr) *ierror = rc;
}

}  // namespace colltune::shim::fortran

#endif  // COLLTUNE_SHIM_FORTRAN_FORTRAN_H_
