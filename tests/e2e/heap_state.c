/* How the C library serves and takes back a 24 MiB block once MPI is up,
 * rank by rank: "heap, kept" (from the heap, not trimmed when freed: the
 * state common/heap.h sets), "heap, trimmed" or "mmap" (glibc's own state
 * until a process frees a block that large). Knows nothing of colltune. */
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const size_t bytes = (size_t)24 << 20;
  const struct mallinfo2 before = mallinfo2();
  char* block = malloc(bytes);
  if (block == NULL) return 1;
  memset(block, 1, bytes);
  const struct mallinfo2 during = mallinfo2();
  const int mapped = during.hblkhd > before.hblkhd;
  free(block);
  const struct mallinfo2 after = mallinfo2();
  const int kept = after.arena >= during.arena;
  printf("rank %d: %s\n", rank, mapped ? "mmap" : kept ? "heap, kept" : "heap, trimmed");
  MPI_Finalize();
  return 0;
}
