/* An MPI program packaged as a plugin, as Python's mpi4py, Julia's MPI.jl
   and R's Rmpi package MPI: the host program (dlopen_host.c) has no MPI and
   loads this object with dlopen(RTLD_LOCAL), which brings libmpi in with it.
   Under a preloaded shim, its MPI calls reach the shim, which must find the
   library's entry points although they are not in the global scope. */
#include <mpi.h>
#include <stdio.h>

int plugin_main(int argc, char** argv) {
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    return 10;
  }
  int rank = 0, size = 0, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 50; ++i) {
    double x[4] = {rank + 1.0, rank + 2.0, i, 1.0}, y[4];
    MPI_Allreduce(x, y, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double n = size;
    if (y[0] != n * (n + 1) / 2 || y[1] != n * (n + 3) / 2 || y[2] != i * n || y[3] != n) {
      ++bad;
    }
    int root_value = rank == 0 ? 1000 + i : -1;
    MPI_Bcast(&root_value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (root_value != 1000 + i) ++bad;
  }
  int all_bad = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("plugin: %d processes, %d wrong results\n", size, all_bad);
  MPI_Finalize();
  return all_bad == 0 ? 0 : 1;
}
