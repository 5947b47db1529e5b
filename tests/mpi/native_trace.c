/* Which allreduce algorithm ran, told without timing: a commutative user
 * operation records the length of every invocation on this rank. Recursive
 * doubling combines the whole vector log2(p) times on every rank, a ring
 * combines blocks of about count/p, a linear reduce combines p-1 whole
 * vectors on the root only, and so on: the per-rank list of lengths is the
 * algorithm's fingerprint. The sum is checked too.
 *
 * Prints one line per rank, "rank R: n=N lengths=L1,L2,...". Usage:
 * native_trace [count] */
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

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = argc > 1 ? atoi(argv[1]) : 1024;
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
  int used = snprintf(line, sizeof line, "rank %d: n=%d lengths=", rank, calls);
  for (int i = 0; i < n && used < (int)sizeof line - 16; ++i) {
    used += snprintf(line + used, sizeof line - used, "%s%d", i ? "," : "", lengths[i]);
  }
  printf("%s%s\n", line, bad ? " WRONG" : "");
  MPI_Op_free(&op);
  free(in);
  free(out);
  MPI_Finalize();
  return bad;
}
