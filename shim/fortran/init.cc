// MPI_INIT, MPI_INIT_THREAD and MPI_FINALIZE from Fortran. The library's own
// Fortran routine does the work (so whatever a Fortran start needs beyond the
// C one still happens), reached through its profiling name; the shim starts
// after it and stops before finalizing, as for a C program (intercept/init.cc).
//
// Open MPI: every binding's routines call PMPI_Init directly, so mpi_init_
// (all manglings) and mpi_f08's mpi_init_f08_ are wrapped, and its
// pmpi_init_ does the work. MPICH: mpif.h and `use mpi` reach the C MPI_Init,
// which the shim wraps; only mpi_f08's mpi_init_f08_ & co. call PMPI_Init
// directly, and pmpir_init_f08_ does their work.
#include <string>

#include "shim/fortran/fortran.h"
#include "shim/intercept/api.h"
#include "shim/intercept/export.h"
#include "shim/native/native.h"
#include "shim/runtime/config.h"
#include "shim/runtime/runtime.h"
#include "shim/runtime/table_source.h"

namespace colltune::shim::fortran {
namespace {

#if defined(OPEN_MPI)
constexpr char kInit[] = "pmpi_init_";
constexpr char kInitThread[] = "pmpi_init_thread_";
constexpr char kFinalize[] = "pmpi_finalize_";
#else
constexpr char kInit[] = "pmpir_init_f08_";
constexpr char kInitThread[] = "pmpir_init_thread_f08_";
constexpr char kFinalize[] = "pmpir_finalize_f08_";
#endif

using InitFn = void (*)(MPI_Fint* ierror);
using InitThreadFn = void (*)(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierror);
using FinalizeFn = void (*)(MPI_Fint* ierror);

template <class F>
F Routine(const char* name) {
  return reinterpret_cast<F>(pmpi::Symbol(name));
}

void Start(MPI_Fint rc, const std::string& heap) {
  if (rc != MPI_SUCCESS) return;
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  Runtime::Start(provided, heap);
}

}  // namespace

void Init(MPI_Fint* ierror) {
  MPI_Fint rc = MPI_SUCCESS;
  const std::string heap = Runtime::PrepareHeap();
  PrefetchTable();
  NativeInitScope native(!DisabledByEnvironment());
  if (InitFn f = Routine<InitFn>(kInit)) {
    f(&rc);
  } else {
    rc = PMPI_Init(nullptr, nullptr);
  }
  Start(rc, heap);
  SetError(ierror, rc);
}

void InitThread(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierror) {
  MPI_Fint rc = MPI_SUCCESS;
  const std::string heap = Runtime::PrepareHeap();
  PrefetchTable();
  NativeInitScope native(!DisabledByEnvironment());
  if (InitThreadFn f = Routine<InitThreadFn>(kInitThread)) {
    f(required, provided, &rc);
  } else {
    int got = MPI_THREAD_SINGLE;
    rc = PMPI_Init_thread(nullptr, nullptr, *required, &got);
    *provided = got;
  }
  Start(rc, heap);
  SetError(ierror, rc);
}

void Finalize(MPI_Fint* ierror) {
  const FinalDelivery delivery = Runtime::Stop();
  MPI_Fint rc = MPI_SUCCESS;
  if (FinalizeFn f = Routine<FinalizeFn>(kFinalize)) {
    f(&rc);
  } else {
    rc = PMPI_Finalize();
  }
  Runtime::Deliver(delivery);
  SetError(ierror, rc);
}

}  // namespace colltune::shim::fortran

using colltune::shim::fortran::Finalize;
using colltune::shim::fortran::Init;
using colltune::shim::fortran::InitThread;

// mpi_f08 (both libraries): IERROR is optional, so it may be NULL.
COLLTUNE_EXPORT void mpi_init_f08_(MPI_Fint* ierror) { Init(ierror); }
COLLTUNE_EXPORT void mpi_init_thread_f08_(MPI_Fint* required, MPI_Fint* provided,
                                          MPI_Fint* ierror) {
  InitThread(required, provided, ierror);
}
COLLTUNE_EXPORT void mpi_finalize_f08_(MPI_Fint* ierror) { Finalize(ierror); }

#if !defined(OPEN_MPI)
// MPICH's mpi_f08 MPI_BARRIER calls PMPI_Barrier, not the C MPI_Barrier the
// shim wraps (its other collectives do reach the C entry points). Open MPI's
// comes from the generated bindings.
COLLTUNE_EXPORT void mpi_barrier_f08_(MPI_Fint* comm, MPI_Fint* ierror) {
  colltune::shim::fortran::SetError(
      ierror, colltune::shim::api::Barrier(colltune::shim::fortran::CommOf(*comm)));
}
#endif

#if defined(OPEN_MPI)
// mpif.h and `use mpi`, in the manglings compilers use on x86-64 (not the
// bare lower-case one: C code names its own functions so, see
// gen_bindings.py).
#define COLLTUNE_FORTRAN_INIT(name)                                            \
  COLLTUNE_EXPORT void name(MPI_Fint* ierror) { Init(ierror); }
#define COLLTUNE_FORTRAN_INIT_THREAD(name)                                     \
  COLLTUNE_EXPORT void name(MPI_Fint* required, MPI_Fint* provided,            \
                            MPI_Fint* ierror) {                                \
    InitThread(required, provided, ierror);                                    \
  }
#define COLLTUNE_FORTRAN_FINALIZE(name)                                        \
  COLLTUNE_EXPORT void name(MPI_Fint* ierror) { Finalize(ierror); }
COLLTUNE_FORTRAN_INIT(mpi_init_)
COLLTUNE_FORTRAN_INIT(mpi_init__)
COLLTUNE_FORTRAN_INIT(MPI_INIT)
COLLTUNE_FORTRAN_INIT_THREAD(mpi_init_thread_)
COLLTUNE_FORTRAN_INIT_THREAD(mpi_init_thread__)
COLLTUNE_FORTRAN_INIT_THREAD(MPI_INIT_THREAD)
COLLTUNE_FORTRAN_FINALIZE(mpi_finalize_)
COLLTUNE_FORTRAN_FINALIZE(mpi_finalize__)
COLLTUNE_FORTRAN_FINALIZE(MPI_FINALIZE)
#endif
