/* Prints the value the MPI library holds for one integer control variable
 * after MPI_Init, as it parsed it from the environment itself (Open MPI's
 * OMPI_MCA_*, MPICH's MPIR_CVAR_* both accept algorithm names there). The
 * natives test compares it with the value colltune found for the same name.
 * Usage: cvar_value NAME */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  MPI_Init(&argc, &argv);
  int provided, index, count, value = -1;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_T_cvar_handle handle;
  if (MPI_T_cvar_get_index(argv[1], &index) != MPI_SUCCESS ||
      MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS ||
      MPI_T_cvar_read(handle, &value) != MPI_SUCCESS) {
    printf("%s: not found\n", argv[1]);
  } else {
    printf("%d\n", value);
    MPI_T_cvar_handle_free(&handle);
  }
  MPI_T_finalize();
  MPI_Finalize();
  return value < 0;
}
