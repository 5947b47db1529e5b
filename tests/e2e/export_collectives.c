/* Calls each of the 17 collectives colltune tunes once per count given, on
 * MPI_COMM_WORLD, and checks every result: run under a library tuning file
 * written by `colltune export`, it shows the file names only algorithms the
 * library has and leaves no collective without a choice (MPICH aborts on the
 * first call of a collective its selection file does not cover).
 *
 * Prints "collectives ok" on rank 0 when every result on every rank is
 * right, else one line per wrong collective; exits non-zero on any error.
 * Usage: export_collectives [count...]   (ints per process block; default 64)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int bad;

static void expect(int ok, const char* what, int count) {
  if (!ok) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d: %s wrong at count %d\n", rank, what, count);
    bad = 1;
  }
}

/* The value rank r contributes at position i. */
static int v(int r, int i) { return r * 1000 + i % 997; }

static void run(int count, int rank, int p) {
  const int root = p - 1;
  int* send = malloc(sizeof(int) * (size_t)count * p);
  int* recv = malloc(sizeof(int) * (size_t)count * p);
  int* counts = malloc(sizeof(int) * p);
  int* displs = malloc(sizeof(int) * p);
  int ok;

  for (int i = 0; i < count; ++i) send[i] = v(rank, i);
  MPI_Allgather(send, count, MPI_INT, recv, count, MPI_INT, MPI_COMM_WORLD);
  ok = 1;
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < count; ++i) ok &= recv[r * count + i] == v(r, i);
  expect(ok, "allgather", count);

  MPI_Allreduce(send, recv, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ok = 1;
  for (int i = 0; i < count; ++i) ok &= recv[i] == 1000 * p * (p - 1) / 2 + p * (i % 997);
  expect(ok, "allreduce", count);

  for (int r = 0; r < p; ++r)
    for (int i = 0; i < count; ++i) send[r * count + i] = v(rank, r * count + i);
  MPI_Alltoall(send, count, MPI_INT, recv, count, MPI_INT, MPI_COMM_WORLD);
  ok = 1;
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < count; ++i) ok &= recv[r * count + i] == v(r, rank * count + i);
  expect(ok, "alltoall", count);

  for (int i = 0; i < count; ++i) recv[i] = rank == root ? v(root, i) : -1;
  MPI_Bcast(recv, count, MPI_INT, root, MPI_COMM_WORLD);
  ok = 1;
  for (int i = 0; i < count; ++i) ok &= recv[i] == v(root, i);
  expect(ok, "bcast", count);

  for (int i = 0; i < count; ++i) send[i] = v(rank, i);
  MPI_Gather(send, count, MPI_INT, recv, count, MPI_INT, root, MPI_COMM_WORLD);
  ok = 1;
  if (rank == root)
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < count; ++i) ok &= recv[r * count + i] == v(r, i);
  expect(ok, "gather", count);

  /* Irregular: rank r sends count - r ints (at least 1). */
  int total = 0;
  for (int r = 0; r < p; ++r) {
    counts[r] = count - r > 0 ? count - r : 1;
    displs[r] = total;
    total += counts[r];
  }
  MPI_Gatherv(send, counts[rank], MPI_INT, recv, counts, displs, MPI_INT, root,
              MPI_COMM_WORLD);
  ok = 1;
  if (rank == root)
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < counts[r]; ++i) ok &= recv[displs[r] + i] == v(r, i);
  expect(ok, "gatherv", count);

  MPI_Reduce(send, recv, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  ok = 1;
  if (rank == root)
    for (int i = 0; i < count; ++i)
      ok &= recv[i] == 1000 * p * (p - 1) / 2 + p * (i % 997);
  expect(ok, "reduce", count);

  for (int i = 0; i < count * p; ++i) send[i] = v(rank, i);
  MPI_Reduce_scatter_block(send, recv, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ok = 1;
  for (int i = 0; i < count; ++i)
    ok &= recv[i] == 1000 * p * (p - 1) / 2 + p * ((rank * count + i) % 997);
  expect(ok, "reduce_scatter_block", count);

  for (int i = 0; i < count; ++i) send[i] = v(rank, i);
  MPI_Scan(send, recv, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ok = 1;
  for (int i = 0; i < count; ++i)
    ok &= recv[i] == 1000 * rank * (rank + 1) / 2 + (rank + 1) * (i % 997);
  expect(ok, "scan", count);

  for (int i = 0; i < count * p; ++i) send[i] = v(root, i);
  MPI_Scatter(send, count, MPI_INT, recv, count, MPI_INT, root, MPI_COMM_WORLD);
  ok = 1;
  for (int i = 0; i < count; ++i) ok &= recv[i] == v(root, rank * count + i);
  expect(ok, "scatter", count);

  MPI_Scatterv(send, counts, displs, MPI_INT, recv, counts[rank], MPI_INT, root,
               MPI_COMM_WORLD);
  ok = 1;
  for (int i = 0; i < counts[rank]; ++i) ok &= recv[i] == v(root, displs[rank] + i);
  expect(ok, "scatterv", count);

  /* Allgatherv: rank r contributes counts[r] ints. */
  for (int i = 0; i < counts[rank]; ++i) send[i] = v(rank, i);
  MPI_Allgatherv(send, counts[rank], MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
  ok = 1;
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < counts[r]; ++i) ok &= recv[displs[r] + i] == v(r, i);
  expect(ok, "allgatherv", count);

  /* Reduce_scatter: rank r receives counts[r] sums. */
  for (int i = 0; i < total; ++i) send[i] = v(rank, i);
  MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ok = 1;
  for (int i = 0; i < counts[rank]; ++i)
    ok &= recv[i] == 1000 * p * (p - 1) / 2 + p * ((displs[rank] + i) % 997);
  expect(ok, "reduce_scatter", count);

  /* Alltoallv and Alltoallw with blocks of count ints. */
  int* blocks = malloc(sizeof(int) * p);
  int* offsets = malloc(sizeof(int) * p);
  int* byte_offsets = malloc(sizeof(int) * p);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * p);
  for (int r = 0; r < p; ++r) {
    blocks[r] = count;
    offsets[r] = r * count;
    byte_offsets[r] = r * count * (int)sizeof(int);
    types[r] = MPI_INT;
    for (int i = 0; i < count; ++i) send[r * count + i] = v(rank, r * count + i);
  }
  MPI_Alltoallv(send, blocks, offsets, MPI_INT, recv, blocks, offsets, MPI_INT,
                MPI_COMM_WORLD);
  ok = 1;
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < count; ++i) ok &= recv[r * count + i] == v(r, rank * count + i);
  expect(ok, "alltoallv", count);
  MPI_Alltoallw(send, blocks, byte_offsets, types, recv, blocks, byte_offsets, types,
                MPI_COMM_WORLD);
  ok = 1;
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < count; ++i) ok &= recv[r * count + i] == v(r, rank * count + i);
  expect(ok, "alltoallw", count);

  expect(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier", count);

  for (int i = 0; i < count; ++i) send[i] = v(rank, i);
  MPI_Exscan(send, recv, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ok = 1;
  if (rank > 0)
    for (int i = 0; i < count; ++i)
      ok &= recv[i] == 1000 * rank * (rank - 1) / 2 + rank * (i % 997);
  expect(ok, "exscan", count);

  free(blocks);
  free(offsets);
  free(byte_offsets);
  free(types);
  free(send);
  free(recv);
  free(counts);
  free(displs);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 2) {
    run(64, rank, p);
  } else {
    for (int a = 1; a < argc; ++a) run(atoi(argv[a]), rank, p);
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !any_bad) printf("collectives ok\n");
  MPI_Finalize();
  return any_bad;
}
