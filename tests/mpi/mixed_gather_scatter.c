/* The evidence of a defect the shim repairs (shim/runtime/repairs.h): MPICH
 * 4.0.2's MPI_Scatter and MPI_Gather abort with "Message truncated" on data
 * whose datatype mixes basic types. One MPI_Scatter or
 * MPI_Gather of ELEMENTS elements a rank at ROOT, of TYPE:
 *   struct       {int; double} resized to its C size (4 bytes of padding),
 *                8 of them in a contiguous type (seed 003's struct layout)
 *   double_int   MPI_DOUBLE_INT
 *   dense12      {double; int} in 12 bytes (mixed, no gaps, the double
 *                unaligned in every other element)
 *   dense        {int; int; double} in 16 bytes (mixed, no gaps)
 * Every element's values are checked, and the bytes of the gaps in the
 * receive buffers must keep what they held before the call.
 *
 *   mpirun -np 2 mixed_gather_scatter scatter struct 1000 1
 *
 * Prints "<collective> <type> np=N root=R elements=E: results verified", or
 * "... wrong at rank R: ..." and exits 1. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kFill = 0xAB };

struct Pair {
  int i;
  double d;
};

/* The type of one element, and where its int and its double are. */
static MPI_Datatype MakeType(const char* name, MPI_Aint* int_at, MPI_Aint* double_at,
                             int* pairs) {
  MPI_Datatype t;
  *pairs = 1;
  if (strcmp(name, "struct") == 0) {
    const int lens[2] = {1, 1};
    const MPI_Aint displs[2] = {offsetof(struct Pair, i), offsetof(struct Pair, d)};
    const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype pair, padded;
    MPI_Type_create_struct(2, lens, displs, types, &pair);
    MPI_Type_create_resized(pair, 0, sizeof(struct Pair), &padded);
    MPI_Type_contiguous(8, padded, &t);
    MPI_Type_free(&pair);
    MPI_Type_free(&padded);
    *int_at = offsetof(struct Pair, i);
    *double_at = offsetof(struct Pair, d);
    *pairs = 8;
  } else if (strcmp(name, "double_int") == 0) {
    MPI_Type_dup(MPI_DOUBLE_INT, &t);
    *int_at = sizeof(double);
    *double_at = 0;
  } else if (strcmp(name, "dense12") == 0) {
    const int lens[2] = {1, 1};
    const MPI_Aint displs[2] = {0, sizeof(double)};
    const MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Datatype pair;
    MPI_Type_create_struct(2, lens, displs, types, &pair);
    MPI_Type_create_resized(pair, 0, sizeof(double) + sizeof(int), &t);
    MPI_Type_free(&pair);
    *int_at = sizeof(double);
    *double_at = 0;
  } else if (strcmp(name, "dense") == 0) {
    const int lens[2] = {2, 1};
    const MPI_Aint displs[2] = {0, 2 * sizeof(int)};
    const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, lens, displs, types, &t);
    *int_at = 0;
    *double_at = 2 * sizeof(int);
  } else {
    return MPI_DATATYPE_NULL;
  }
  MPI_Type_commit(&t);
  return t;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 5 || (strcmp(argv[1], "scatter") != 0 && strcmp(argv[1], "gather") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: %s scatter|gather struct|double_int|dense12|dense ELEMENTS ROOT\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const int scatter = strcmp(argv[1], "scatter") == 0;
  const int n = atoi(argv[3]);
  const int root = atoi(argv[4]) % size;
  MPI_Aint int_at, double_at, lb, extent;
  int pairs;
  MPI_Datatype type = MakeType(argv[2], &int_at, &double_at, &pairs);
  if (type == MPI_DATATYPE_NULL || n < 1) {
    if (rank == 0) fprintf(stderr, "unknown type %s or bad count\n", argv[2]);
    MPI_Finalize();
    return 2;
  }
  MPI_Type_get_extent(type, &lb, &extent);
  const MPI_Aint pair_extent = extent / pairs;
  /* The root's p blocks and every rank's own block, gaps filled. */
  const size_t block_bytes = (size_t)extent * n;
  unsigned char* all = malloc(block_bytes * size);
  unsigned char* mine = malloc(block_bytes);
  memset(all, kFill, block_bytes * size);
  memset(mine, kFill, block_bytes);
  /* Element k of block b holds int b*1000003+k and double (b+1)*0.5+k. */
  unsigned char* sent = scatter ? all : mine;
  const int first_block = scatter ? 0 : rank, blocks = scatter ? size : 1;
  if (!scatter || rank == root) {
    for (int b = 0; b < blocks; ++b) {
      for (long k = 0; k < (long)n * pairs; ++k) {
        unsigned char* e = sent + (size_t)b * block_bytes + (size_t)k * pair_extent;
        const int iv = (first_block + b) * 1000003 + (int)k;
        const double dv = (first_block + b + 1) * 0.5 + (double)k;
        memcpy(e + int_at, &iv, sizeof iv);
        memcpy(e + double_at, &dv, sizeof dv);
      }
    }
  }
  int rc = scatter ? MPI_Scatter(all, n, type, mine, n, type, root, MPI_COMM_WORLD)
                   : MPI_Gather(mine, n, type, all, n, type, root, MPI_COMM_WORLD);
  int errors = rc != MPI_SUCCESS;
  /* What this rank received: its block (scatter), or all blocks (gather root). */
  const int check = scatter || rank == root;
  unsigned char* got = scatter ? mine : all;
  const int got_first = scatter ? rank : 0, got_blocks = scatter ? 1 : size;
  for (int b = 0; check && b < got_blocks && errors < 5; ++b) {
    for (long k = 0; k < (long)n * pairs && errors < 5; ++k) {
      unsigned char* e = got + (size_t)b * block_bytes + (size_t)k * pair_extent;
      int iv;
      double dv;
      memcpy(&iv, e + int_at, sizeof iv);
      memcpy(&dv, e + double_at, sizeof dv);
      const int want_i = (got_first + b) * 1000003 + (int)k;
      const double want_d = (got_first + b + 1) * 0.5 + (double)k;
      if (iv != want_i || dv != want_d) {
        printf("%s %s wrong at rank %d: block %d element %ld holds %d/%g, not %d/%g\n", argv[1],
               argv[2], rank, got_first + b, k, iv, dv, want_i, want_d);
        ++errors;
      }
      for (MPI_Aint g = 0; g < pair_extent; ++g) {
        const int in_int = g >= int_at && g < int_at + (MPI_Aint)sizeof(int);
        const int in_double = g >= double_at && g < double_at + (MPI_Aint)sizeof(double);
        if (!in_int && !in_double && e[g] != kFill) {
          printf("%s %s wrong at rank %d: block %d element %ld gap byte %ld written\n", argv[1],
                 argv[2], rank, got_first + b, k, (long)g);
          ++errors;
          break;
        }
      }
    }
  }
  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) {
    printf("%s %s np=%d root=%d elements=%d: results verified\n", argv[1], argv[2], size, root,
           n);
  }
  MPI_Type_free(&type);
  free(all);
  free(mine);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
