#include "bench/barrier.h"

namespace colltune::bench {

int DisseminationBarrier(MPI_Comm comm) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  constexpr int kTag = 0x5ca1;
  for (int distance = 1; distance < size; distance *= 2) {
    const int to = (rank + distance) % size;
    const int from = (rank - distance + size) % size;
    int rc = PMPI_Sendrecv(nullptr, 0, MPI_BYTE, to, kTag, nullptr, 0,
                           MPI_BYTE, from, kTag, comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace colltune::bench
