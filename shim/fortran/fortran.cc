#include "shim/fortran/fortran.h"

namespace colltune::shim::fortran {

#if defined(OPEN_MPI)
MPI_Datatype TypeOf(MPI_Fint f) { return PMPI_Type_f2c(f); }
MPI_Op OpOf(MPI_Fint f) { return PMPI_Op_f2c(f); }
MPI_Comm CommOf(MPI_Fint f) { return PMPI_Comm_f2c(f); }
#else
// MPICH's conversions are casts (macros of its mpi.h).
MPI_Datatype TypeOf(MPI_Fint f) { return MPI_Type_f2c(f); }
MPI_Op OpOf(MPI_Fint f) { return MPI_Op_f2c(f); }
MPI_Comm CommOf(MPI_Fint f) { return MPI_Comm_f2c(f); }
#endif

}  // namespace colltune::shim::fortran
