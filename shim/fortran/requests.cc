// MPI_START, MPI_STARTALL and MPI_REQUEST_FREE from Fortran, where the
// library's Fortran routine calls PMPI_Start & co. directly, past the C
// wrappers of intercept/counted.cc: Open MPI's in every binding, MPICH's in
// mpi_f08 only (its mpif.h and `use mpi` routines call the C MPI_Start the
// shim wraps). While counting, a start of a persistent collective request
// counts under its initialization's collective and size, and a freed
// request leaves the table (runtime/counted.h); the requests are converted
// (MPI_Request_f2c) only then. The library's own routine does the work.
#include <atomic>

#include "shim/fortran/fortran.h"
#include "shim/intercept/counted_keys.h"
#include "shim/intercept/export.h"
#include "shim/runtime/counted.h"

using namespace colltune::shim;  // NOLINT: entry points
using namespace colltune::shim::counted_keys;  // NOLINT
using namespace colltune::shim::fortran;  // NOLINT

namespace {

using StartFn = void (*)(MPI_Fint* request, MPI_Fint* ierror);
using StartallFn = void (*)(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* ierror);
using FreeFn = void (*)(MPI_Fint* request, MPI_Fint* ierror);

__attribute__((noinline, cold)) void CountStartF(const MPI_Fint* request) {
  if (request != nullptr && counted::requests::live.load(std::memory_order_relaxed) > 0) {
    CountStart(RequestOf(*request));
  }
}
__attribute__((noinline, cold)) void CountStartallF(const MPI_Fint* count,
                                                    const MPI_Fint* requests) {
  if (count == nullptr || requests == nullptr ||
      counted::requests::live.load(std::memory_order_relaxed) == 0) {
    return;
  }
  for (MPI_Fint i = 0; i < *count; ++i) CountStart(RequestOf(requests[i]));
}
__attribute__((noinline, cold)) void ForgetF(const MPI_Fint* request) {
  if (request != nullptr && counted::requests::live.load(std::memory_order_relaxed) > 0) {
    counted::requests::Remove(RequestKey(RequestOf(*request)));
  }
}

}  // namespace

// One library routine per entry point: NAME is exported, LIBRARY called.
#define COLLTUNE_FORTRAN_START(name, library)                                         \
  namespace {                                                                         \
  constexpr char kName_##name[] = library;                                            \
  std::atomic<StartFn> lib_##name{&Library<StartFn>::Stub<&lib_##name, kName_##name>}; \
  }                                                                                   \
  COLLTUNE_EXPORT void name(MPI_Fint* request, MPI_Fint* ierror) {                    \
    if (__builtin_expect(counted::On(), 0)) CountStartF(request);                     \
    lib_##name.load(std::memory_order_relaxed)(request, ierror);                      \
  }
#define COLLTUNE_FORTRAN_STARTALL(name, library)                                      \
  namespace {                                                                         \
  constexpr char kName_##name[] = library;                                            \
  std::atomic<StartallFn> lib_##name{                                                 \
      &Library<StartallFn>::Stub<&lib_##name, kName_##name>};                         \
  }                                                                                   \
  COLLTUNE_EXPORT void name(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* ierror) {  \
    if (__builtin_expect(counted::On(), 0)) CountStartallF(count, requests);          \
    lib_##name.load(std::memory_order_relaxed)(count, requests, ierror);              \
  }
#define COLLTUNE_FORTRAN_FREE(name, library)                                          \
  namespace {                                                                         \
  constexpr char kName_##name[] = library;                                            \
  std::atomic<FreeFn> lib_##name{&Library<FreeFn>::Stub<&lib_##name, kName_##name>};  \
  }                                                                                   \
  COLLTUNE_EXPORT void name(MPI_Fint* request, MPI_Fint* ierror) {                    \
    if (__builtin_expect(counted::On(), 0)) ForgetF(request);                         \
    lib_##name.load(std::memory_order_relaxed)(request, ierror);                      \
  }

#if defined(OPEN_MPI)
// mpif.h and `use mpi` (the manglings of gen_bindings.py), and mpi_f08.
COLLTUNE_FORTRAN_START(mpi_start_, "pmpi_start_")
COLLTUNE_FORTRAN_START(mpi_start__, "pmpi_start_")
COLLTUNE_FORTRAN_START(MPI_START, "pmpi_start_")
COLLTUNE_FORTRAN_START(mpi_start_f08_, "pmpi_start_f08_")
COLLTUNE_FORTRAN_STARTALL(mpi_startall_, "pmpi_startall_")
COLLTUNE_FORTRAN_STARTALL(mpi_startall__, "pmpi_startall_")
COLLTUNE_FORTRAN_STARTALL(MPI_STARTALL, "pmpi_startall_")
COLLTUNE_FORTRAN_STARTALL(mpi_startall_f08_, "pmpi_startall_f08_")
COLLTUNE_FORTRAN_FREE(mpi_request_free_, "pmpi_request_free_")
COLLTUNE_FORTRAN_FREE(mpi_request_free__, "pmpi_request_free_")
COLLTUNE_FORTRAN_FREE(MPI_REQUEST_FREE, "pmpi_request_free_")
COLLTUNE_FORTRAN_FREE(mpi_request_free_f08_, "pmpi_request_free_f08_")
#else
COLLTUNE_FORTRAN_START(mpi_start_f08_, "pmpir_start_f08_")
COLLTUNE_FORTRAN_STARTALL(mpi_startall_f08_, "pmpir_startall_f08_")
COLLTUNE_FORTRAN_FREE(mpi_request_free_f08_, "pmpir_request_free_f08_")
#endif
