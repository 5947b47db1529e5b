// Finding the MPI library's entry points (see mpi.h for why they are
// pointers).
//
// The lookup runs once: from a constructor when MPI is already loaded (a
// program linked with MPI), else at the first MPI call the shim sees (MPI
// loaded later by dlopen). It asks the dynamic linker for the next
// definition of PMPI_Init after the shim (RTLD_NEXT), and, when MPI was
// loaded with RTLD_LOCAL and so is invisible to that, walks the loaded
// objects (dl_iterate_phdr) for the one that defines it.
#ifndef COLLTUNE_SHIM_MPI_PMPI_H_
#define COLLTUNE_SHIM_MPI_PMPI_H_

namespace colltune::shim::pmpi {

// Looks the entry points up if that has not happened yet. Returns false if
// no loaded object defines PMPI_Init (MPI is not there): the pointers then
// stay on their stubs, which fail each call with MPI_ERR_OTHER.
bool Resolve();

// Any other symbol of the MPI library the entry points came from (its
// Fortran routines, say), or null; Resolve() first.
void* Symbol(const char* name);

// Open MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM: addresses of common blocks
// of which a Fortran program holds its own copy (found in the global scope
// first, as the library itself finds them), one per mangling of the name;
// null where absent. Looked up with the entry points.
struct FortranSentinels {
  const void* in_place[4] = {};
  const void* bottom[4] = {};
  // The lowest and highest of them: one range test rules out almost every
  // buffer before the eight comparisons.
  const void* lowest = nullptr;
  const void* highest = nullptr;
};
extern FortranSentinels fortran_sentinels;

}  // namespace colltune::shim::pmpi

#endif  // COLLTUNE_SHIM_MPI_PMPI_H_
