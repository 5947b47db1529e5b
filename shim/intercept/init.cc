// MPI_Init, MPI_Init_thread and MPI_Finalize: the shim starts after the
// library is up and stops before it goes down. Their return codes are the
// library's, whatever the shim's own start-up met.
#include <string>

#include "shim/intercept/export.h"
#include "shim/native/native.h"
#include "shim/runtime/config.h"
#include "shim/runtime/runtime.h"
#include "shim/runtime/table_source.h"

using colltune::shim::Runtime;

COLLTUNE_EXPORT int MPI_Init(int* argc, char*** argv) {
  int rc;
  const std::string heap = Runtime::PrepareHeap();
  {
    colltune::shim::PrefetchTable();
    colltune::shim::NativeInitScope native(!colltune::shim::DisabledByEnvironment());
    rc = PMPI_Init(argc, argv);
  }
  if (rc != MPI_SUCCESS) return rc;
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  Runtime::Start(provided, heap);
  return rc;
}

COLLTUNE_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required,
                                    int* provided) {
  int rc;
  const std::string heap = Runtime::PrepareHeap();
  {
    colltune::shim::PrefetchTable();
    colltune::shim::NativeInitScope native(!colltune::shim::DisabledByEnvironment());
    rc = PMPI_Init_thread(argc, argv, required, provided);
  }
  if (rc != MPI_SUCCESS) return rc;
  Runtime::Start(*provided, heap);
  return rc;
}

COLLTUNE_EXPORT int MPI_Finalize(void) {
  // The report is combined while MPI runs and sent once it is down, so no
  // other rank waits in MPI_Finalize while rank 0 talks to the daemon.
  const colltune::shim::FinalDelivery delivery = Runtime::Stop();
  const int rc = PMPI_Finalize();
  Runtime::Deliver(delivery);
  return rc;
}
