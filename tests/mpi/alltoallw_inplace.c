/* An in-place MPI_Alltoallw whose receive types differ between peers: block
 * i of rank r holds i + r + 1 ints, described as one element of a contiguous
 * type of that length. Prints "rank R errors N" (the wrong elements). MPICH
 * 4.0.2's own `nb` algorithm gets it wrong (common/quirks.h). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int stride = 2 * size + 2; /* ints per block slot */
  int* buf = malloc(sizeof(int) * stride * size);
  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * size);
  for (int i = 0; i < size; ++i) {
    const int n = i + rank + 1; /* the peer's block for us has the same length */
    MPI_Type_contiguous(n, MPI_INT, &types[i]);
    MPI_Type_commit(&types[i]);
    counts[i] = 1;
    displs[i] = (int)sizeof(int) * stride * i;
    for (int j = 0; j < stride; ++j) buf[stride * i + j] = j < n ? 1000 * rank + 10 * i + j : -1;
  }
  MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, displs, types, MPI_COMM_WORLD);
  int errors = 0;
  for (int i = 0; i < size; ++i) {
    const int n = i + rank + 1;
    for (int j = 0; j < stride; ++j) {
      const int want = j < n ? 1000 * i + 10 * rank + j : -1;
      if (buf[stride * i + j] != want) ++errors;
    }
    MPI_Type_free(&types[i]);
  }
  printf("rank %d errors %d\n", rank, errors);
  free(buf);
  free(counts);
  free(displs);
  free(types);
  MPI_Finalize();
  return 0;
}
