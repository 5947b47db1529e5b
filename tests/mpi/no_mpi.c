/* Linked with the shim but with no MPI library: the shim's MPI_Init finds
   no PMPI_Init to call, and must say so and fail the call, not crash. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rc = MPI_Init(&argc, &argv);
  if (rc != MPI_SUCCESS) {
    printf("MPI_Init returned an error (%d), as it should without MPI\n", rc);
    return 0;
  }
  printf("MPI_Init succeeded without an MPI library?\n");
  return 1;
}
