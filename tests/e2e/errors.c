/* Every intercepted collective but Barrier (which has no argument to get
 * wrong but the communicator), called with an invalid argument (a root out
 * of range, or a negative count) under MPI_ERRORS_RETURN, must return an
 * error code: the shim may run a mock-up, but never swallow an error.
 * Prints "errors returned" and exits 0 when every call reported one. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int buf[64] = {0}, out[64 * 16] = {0}, counts[16] = {0}, displs[16] = {0};
  /* Counts MPI forbids, the same on every rank (so that the library's own
   * collective fails alike everywhere instead of hanging). */
  int negative[16], bytes[16];
  MPI_Datatype types[16];
  for (int i = 0; i < 16; ++i) negative[i] = -1, bytes[i] = 0, types[i] = MPI_INT;
  const int bad_root = size; /* one past the last rank */
  struct {
    const char* name;
    int rc;
  } calls[] = {
      {"bcast", MPI_Bcast(buf, 4, MPI_INT, bad_root, MPI_COMM_WORLD)},
      {"reduce", MPI_Reduce(buf, out, 4, MPI_INT, MPI_SUM, bad_root, MPI_COMM_WORLD)},
      {"gather", MPI_Gather(buf, 4, MPI_INT, out, 4, MPI_INT, bad_root, MPI_COMM_WORLD)},
      {"scatter", MPI_Scatter(buf, 4, MPI_INT, out, 4, MPI_INT, bad_root, MPI_COMM_WORLD)},
      {"gatherv", MPI_Gatherv(buf, 1, MPI_INT, out, counts, displs, MPI_INT, bad_root,
                              MPI_COMM_WORLD)},
      {"scatterv", MPI_Scatterv(buf, counts, displs, MPI_INT, out, 1, MPI_INT, bad_root,
                                MPI_COMM_WORLD)},
      {"allreduce", MPI_Allreduce(buf, out, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)},
      {"allgather", MPI_Allgather(buf, -1, MPI_INT, out, -1, MPI_INT, MPI_COMM_WORLD)},
      {"alltoall", MPI_Alltoall(buf, -1, MPI_INT, out, -1, MPI_INT, MPI_COMM_WORLD)},
      {"scan", MPI_Scan(buf, out, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)},
      {"reduce_scatter_block",
       MPI_Reduce_scatter_block(buf, out, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)},
      {"allgatherv", MPI_Allgatherv(buf, -1, MPI_INT, out, negative, displs, MPI_INT,
                                    MPI_COMM_WORLD)},
      {"alltoallv", MPI_Alltoallv(buf, negative, displs, MPI_INT, out, negative, displs,
                                  MPI_INT, MPI_COMM_WORLD)},
      {"alltoallw", MPI_Alltoallw(buf, negative, bytes, types, out, negative, bytes, types,
                                  MPI_COMM_WORLD)},
      {"reduce_scatter",
       MPI_Reduce_scatter(buf, out, negative, MPI_INT, MPI_SUM, MPI_COMM_WORLD)},
      {"exscan", MPI_Exscan(buf, out, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)},
  };
  int missing = 0;
  for (unsigned i = 0; i < sizeof calls / sizeof calls[0]; ++i) {
    if (calls[i].rc == MPI_SUCCESS) {
      fprintf(stderr, "errors: rank %d: %s returned MPI_SUCCESS\n", rank, calls[i].name);
      ++missing;
    }
  }
  int total = 0;
  MPI_Allreduce(&missing, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("errors returned\n");
  MPI_Finalize();
  return total ? 1 : 0;
}
