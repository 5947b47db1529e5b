/* The evidence of a quirks-table row (common/quirks.h): Open MPI 4.1.4's ring
 * allreduce writes past its temporary buffer when the datatype's data does
 * not start at its origin. An in-place and an out-of-place MPI_Allreduce of
 * COUNT elements of one int at byte OFFSET (default 8: the true lower bound)
 * of a 16-byte extent, reduced by a user-defined sum, checked element by element; the
 * corruption shows when the heap is next used (at the latest in
 * MPI_Finalize), as an abort.
 *
 *   mpirun -np 2 --mca coll_tuned_use_dynamic_rules 1 \
 *     --mca coll_tuned_allreduce_algorithm 4 allreduce_shifted_type [COUNT [OFFSET]]
 *
 * Prints "rank R errors N" and, after MPI_Finalize, "rank R done". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kExtent = 16 };
static int offset = 8;

static void Sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) {
    *(int*)((char*)inout + kExtent * i + offset) += *(int*)((char*)in + kExtent * i + offset);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = argc > 1 ? atoi(argv[1]) : 8;
  if (argc > 2) offset = atoi(argv[2]);
  MPI_Datatype inner, shifted;
  int one = 1;
  MPI_Aint at = offset;
  MPI_Datatype base = MPI_INT;
  MPI_Type_create_struct(1, &one, &at, &base, &inner);
  MPI_Type_create_resized(inner, 0, kExtent, &shifted);
  MPI_Type_commit(&shifted);
  MPI_Op sum;
  MPI_Op_create(Sum, 1, &sum);
  const size_t bytes = (size_t)kExtent * count;
  char* send = malloc(bytes);
  char* recv = malloc(bytes);
  int errors = 0;
  for (int in_place = 0; in_place < 2; ++in_place) {
    for (int i = 0; i < count; ++i) {
      *(int*)(send + kExtent * i + offset) = rank + i;
      *(int*)(recv + kExtent * i + offset) = in_place ? rank + i : -1;
    }
    MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv, count, shifted, sum, MPI_COMM_WORLD);
    for (int i = 0; i < count; ++i) {
      const int want = size * i + size * (size - 1) / 2;
      if (*(int*)(recv + kExtent * i + offset) != want) ++errors;
    }
  }
  free(send);
  free(recv);
  printf("rank %d errors %d\n", rank, errors);
  fflush(stdout);
  MPI_Op_free(&sum);
  MPI_Type_free(&shifted);
  MPI_Type_free(&inner);
  MPI_Finalize();
  printf("rank %d done\n", rank);
  return 0;
}
