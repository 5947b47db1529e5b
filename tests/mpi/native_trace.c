/* Which allreduce algorithm ran, told without timing: a commutative user
 * operation records the length of every invocation on this rank. Recursive
 * doubling combines the whole vector log2(p) times on every rank, a ring
 * combines blocks of about count/p, a linear reduce combines p-1 whole
 * vectors on the root only, and so on: the per-rank list of lengths is the
 * algorithm's fingerprint. The sum is checked too.
 *
 * For each count given (default 1024), prints one line per rank,
 * "count C rank R: n=N lengths=L1,L2,... copies=K", K being how often an
 * attribute copy callback on MPI_COMM_WORLD ran (a tool that duplicates the
 * user's communicator behind its back would make it non-zero).
 * Usage: native_trace [count...] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int lengths[4096];
static int calls;

static void record(void* in, void* inout, int* len, MPI_Datatype* type) {
  double* a = in;
  double* b = inout;
  for (int i = 0; i < *len; ++i) b[i] += a[i];
  if (calls < 4096) lengths[calls] = *len;
  ++calls;
}

static int by_value(const void* a, const void* b) {
  return *(const int*)a - *(const int*)b;
}

static int copies;

static int count_copies(MPI_Comm comm, int keyval, void* extra, void* in, void* out,
                        int* flag) {
  ++copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static int trace(int count, int rank, int size);

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int keyval;
  static int value = 42;
  MPI_Comm_create_keyval(count_copies, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &value);
  int bad = 0;
  if (argc < 2) {
    bad |= trace(1024, rank, size);
  } else {
    for (int i = 1; i < argc; ++i) bad |= trace(atoi(argv[i]), rank, size);
  }
  MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
  MPI_Comm_free_keyval(&keyval);
  MPI_Finalize();
  return bad;
}

static int trace(int count, int rank, int size) {
  calls = 0;
  double* in = malloc(sizeof(double) * count);
  double* out = malloc(sizeof(double) * count);
  for (int i = 0; i < count; ++i) in[i] = rank + 1 + i;
  MPI_Op op;
  MPI_Op_create(record, 1, &op);
  int rc = MPI_Allreduce(in, out, count, MPI_DOUBLE, op, MPI_COMM_WORLD);
  int bad = rc != MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    const double want = (double)size * (size + 1) / 2 + (double)size * i;
    if (out[i] != want) bad = 1;
  }
  const int n = calls < 4096 ? calls : 4096;
  qsort(lengths, n, sizeof(int), by_value);
  char line[65536];
  int used =
      snprintf(line, sizeof line, "count %d rank %d: n=%d lengths=", count, rank, calls);
  for (int i = 0; i < n && used < (int)sizeof line - 16; ++i) {
    used += snprintf(line + used, sizeof line - used, "%s%d", i ? "," : "", lengths[i]);
  }
  printf("%s copies=%d%s\n", line, copies, bad ? " WRONG" : "");
  fflush(stdout);
  MPI_Op_free(&op);
  free(in);
  free(out);
  return bad;
}
