// The benchmark's own dissemination barrier (seed 004, Algorithm 1): ranks
// leave it close together, and it behaves the same under every MPI library,
// unlike MPI_Barrier whose algorithm (and exit skew) is the library's choice.
#ifndef COLLTUNE_BENCH_BARRIER_H_
#define COLLTUNE_BENCH_BARRIER_H_

#include <mpi.h>

namespace colltune::bench {

// ceil(log2 p) rounds of zero-byte exchanges with PMPI_Sendrecv.
int DisseminationBarrier(MPI_Comm comm);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_BARRIER_H_
