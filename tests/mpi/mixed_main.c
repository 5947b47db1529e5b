/* A mixed-language MPI program: C starts MPI and calls a Fortran solver
   (mixed_solver.f90, mpif.h), then both halves make the same number of
   MPI_Allreduce calls. Under the shim, both halves must reach it: rank 0
   prints how many calls each half made, which tests/mpi/bindings_test.sh
   compares with the shim's own count. */
#include <mpi.h>
#include <stdio.h>

void fortran_solver_(int* calls, int* bad);

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int calls = 25;
  for (int i = 0; i < calls; ++i) {
    int x = rank + i, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (y != size * (size - 1) / 2 + size * i) ++bad;
  }
  int fortran_calls = calls, fortran_bad = 0;
  fortran_solver_(&fortran_calls, &fortran_bad);
  if (rank == 0) {
    printf("mixed: c calls=%d fortran calls=%d, %d wrong results\n", calls,
           fortran_calls, bad + fortran_bad);
  }
  MPI_Finalize();
  return bad + fortran_bad == 0 ? 0 : 1;
}
