/* Every intercepted collective but Barrier (which has no argument to get
 * wrong but the communicator), called with an invalid argument (a root out
 * of range, or a negative count) under MPI_ERRORS_RETURN, must return an
 * error code: the shim may run a mock-up, but never swallow an error.
 * The communicator's handler is the program's own, which counts and returns:
 * each failed call must have invoked it once (the shim runs calls on
 * communicators of its own, whose errors the user's handler must judge).
 * Prints "errors returned" and exits 0 when every call reported one.
 *
 * --valid-first: each collective is first called once with valid arguments,
 * so that a native algorithm forced by the shim has its shadow communicator
 * made, and the invalid call takes the shim's straight way to it. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int handled; /* calls of Count */

static void Count(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  (void)code;
  ++handled;
}

/* One valid call of each collective the invalid calls below make, the same
 * on every rank; returns how many failed. */
static int ValidCalls(void) {
  static int in[64 * 16], out[64 * 16];
  int counts[16], displs[16], bytes[16], failed = 0;
  MPI_Datatype types[16];
  for (int i = 0; i < 16; ++i) counts[i] = 1, displs[i] = i, bytes[i] = 4 * i, types[i] = MPI_INT;
  MPI_Comm w = MPI_COMM_WORLD;
  int rc[] = {
      MPI_Bcast(in, 4, MPI_INT, 0, w),
      MPI_Reduce(in, out, 4, MPI_INT, MPI_SUM, 0, w),
      MPI_Gather(in, 4, MPI_INT, out, 4, MPI_INT, 0, w),
      MPI_Scatter(in, 4, MPI_INT, out, 4, MPI_INT, 0, w),
      MPI_Gatherv(in, 1, MPI_INT, out, counts, displs, MPI_INT, 0, w),
      MPI_Scatterv(in, counts, displs, MPI_INT, out, 1, MPI_INT, 0, w),
      MPI_Allreduce(in, out, 4, MPI_INT, MPI_SUM, w),
      MPI_Allgather(in, 4, MPI_INT, out, 4, MPI_INT, w),
      MPI_Alltoall(in, 4, MPI_INT, out, 4, MPI_INT, w),
      MPI_Scan(in, out, 4, MPI_INT, MPI_SUM, w),
      MPI_Reduce_scatter_block(in, out, 4, MPI_INT, MPI_SUM, w),
      MPI_Allgatherv(in, 1, MPI_INT, out, counts, displs, MPI_INT, w),
      MPI_Alltoallv(in, counts, displs, MPI_INT, out, counts, displs, MPI_INT, w),
      MPI_Alltoallw(in, counts, bytes, types, out, counts, bytes, types, w),
      MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, w),
      MPI_Exscan(in, out, 4, MPI_INT, MPI_SUM, w),
  };
  for (unsigned i = 0; i < sizeof rc / sizeof rc[0]; ++i) failed += rc[i] != MPI_SUCCESS;
  return failed;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Errhandler counting;
  MPI_Comm_create_errhandler(Count, &counting);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, counting);
  MPI_Errhandler_free(&counting);
  if (argc > 1 && !strcmp(argv[1], "--valid-first") && ValidCalls() != 0) {
    fprintf(stderr, "errors: rank %d: a valid call failed\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
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
  const int n = (int)(sizeof calls / sizeof calls[0]);
  for (int i = 0; i < n; ++i) {
    if (calls[i].rc == MPI_SUCCESS) {
      fprintf(stderr, "errors: rank %d: %s returned MPI_SUCCESS\n", rank, calls[i].name);
      ++missing;
    }
  }
  if (handled != n) {
    fprintf(stderr, "errors: rank %d: the handler ran %d times for %d failed calls\n", rank,
            handled, n);
    ++missing;
  }
  int total = 0;
  MPI_Allreduce(&missing, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("errors returned\n");
  MPI_Finalize();
  return total ? 1 : 0;
}
