/* Ranks describing the same data with different datatypes of one signature,
 * as MPI allows: elements of {double; int}, which rank 0 describes densely
 * (12 bytes, no gaps) and every other rank padded to 16 bytes. A table's
 * whole-class struct rule must be found by every rank alike (the signature
 * decides, shim/runtime/dispatch_table.h), so its packed form may move bytes.
 *
 *   mpirun -np 3 mixed_layouts bcast|allgather ELEMENTS ROOT CALLS
 *
 * Runs CALLS calls; after each, every element's values are checked, and the
 * padding bytes of the receive buffers must keep what they held before the
 * call. Prints "<collective> np=N elements=E: results verified", or "... wrong
 * at rank R: ..." and exits 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kFill = 0xCD };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 5 || (strcmp(argv[1], "bcast") != 0 && strcmp(argv[1], "allgather") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: %s bcast|allgather ELEMENTS ROOT CALLS\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const int bcast = strcmp(argv[1], "bcast") == 0;
  const int n = atoi(argv[2]), root = atoi(argv[3]) % size, calls = atoi(argv[4]);
  const MPI_Aint extent = rank == 0 ? 12 : 16;
  const int lens[2] = {1, 1};
  const MPI_Aint displs[2] = {0, 8};
  const MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
  MPI_Datatype pair, type;
  MPI_Type_create_struct(2, lens, displs, types, &pair);
  MPI_Type_create_resized(pair, 0, extent, &type);
  MPI_Type_commit(&type);
  MPI_Type_free(&pair);
  /* bcast: one block at every rank; allgather: one block from each rank. */
  const int blocks = bcast ? 1 : size;
  const size_t block_bytes = (size_t)extent * n;
  unsigned char* mine = malloc(block_bytes);
  unsigned char* all = malloc(block_bytes * blocks);
  int errors = 0;
  for (int call = 0; call < calls && errors == 0; ++call) {
    /* Element k of block b in call c holds double (b+1)*0.25+k+c and int
     * b*1000003+k-c. */
    unsigned char* out = bcast ? all : mine;
    memset(mine, kFill, block_bytes);
    memset(all, kFill, block_bytes * blocks);
    if (!bcast || rank == root) {
      const int b = bcast ? 0 : rank;
      for (int k = 0; k < n; ++k) {
        const double dv = (b + 1) * 0.25 + k + call;
        const int iv = b * 1000003 + k - call;
        memcpy(out + (size_t)k * extent, &dv, 8);
        memcpy(out + (size_t)k * extent + 8, &iv, 4);
      }
    }
    const int rc = bcast ? MPI_Bcast(all, n, type, root, MPI_COMM_WORLD)
                         : MPI_Allgather(mine, n, type, all, n, type, MPI_COMM_WORLD);
    errors += rc != MPI_SUCCESS;
    for (int b = 0; b < blocks && errors < 5; ++b) {
      for (int k = 0; k < n && errors < 5; ++k) {
        const unsigned char* e = all + (size_t)b * block_bytes + (size_t)k * extent;
        double dv;
        int iv;
        memcpy(&dv, e, 8);
        memcpy(&iv, e + 8, 4);
        const int want_b = bcast ? 0 : b;
        if (dv != (want_b + 1) * 0.25 + k + call || iv != want_b * 1000003 + k - call) {
          printf("%s wrong at rank %d: call %d block %d element %d holds %g/%d\n", argv[1], rank,
                 call, b, k, dv, iv);
          ++errors;
        }
        for (MPI_Aint g = 12; g < extent; ++g) {
          if (e[g] != kFill) {
            printf("%s wrong at rank %d: call %d block %d element %d padding byte %ld written\n",
                   argv[1], rank, call, b, k, (long)g);
            ++errors;
            break;
          }
        }
      }
    }
  }
  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) {
    printf("%s np=%d elements=%d: results verified\n", argv[1], size, n);
  }
  MPI_Type_free(&type);
  free(mine);
  free(all);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
