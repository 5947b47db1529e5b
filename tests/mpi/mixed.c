/* A job that mixes collectives on several communicators, with the argument
 * patterns that make rank-local decisions deadlock: arguments significant
 * only at the root are garbage elsewhere (wrong counts and types, NULL
 * buffers), MPI_IN_PLACE is used at the root only, and message sizes move
 * across decision ranges from round to round. Every rank of a communicator
 * must reach the same algorithm, or the job hangs (the test's timeout turns
 * that into a failure). Results are checked too.
 *
 *   mpirun -np 5 mixed [--rounds 12]
 * Prints "mixed: ok" and exits 0 when everything completed correctly. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrong = 0;
/* MPICH 4.0.2 segfaults in its own MPI_Reduce with MPI_IN_PLACE at a root
 * other than 0 (seen without any shim): under MPICH the in-place reduce uses
 * root 0. */
static int mpich = 0;

static void Expect(int cond, const char* what, int round) {
  if (!cond) {
    ++wrong;
    fprintf(stderr, "mixed: %s wrong in round %d\n", what, round);
  }
}

/* The collectives added later, with their own rank-consistency traps:
 * allgatherv and reduce_scatter are keyed on the total of all counts, which
 * every rank must compute alike even when rank 0 describes its receive side
 * with another type of the same signature; alltoallv and alltoallw carry a
 * different row of counts on every rank, zero-size blocks included. */
static void Later(MPI_Comm comm, int round, int n) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  int* scounts = malloc(sizeof(int) * size);
  int* sdispls = malloc(sizeof(int) * size);
  int* rcounts = malloc(sizeof(int) * size);
  int* rdispls = malloc(sizeof(int) * size);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * size);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = 2 * (r % 3 + 1) * n;
    displs[r] = total;
    total += counts[r];
  }
  int* x = malloc(sizeof(int) * (size_t)total);
  int* y = malloc(sizeof(int) * (size_t)total);

  /* Allgatherv; rank 0 receives in pairs of ints. Not for the largest
   * sizes: Open MPI 4.1.4's own MPI_Allgatherv hangs on 3 processes when the
   * ranks' receive types differ (docs/algorithms.md, library defects). */
  for (int i = 0; i < counts[rank]; ++i) x[i] = rank * 1000 + i % 1000;
  if (rank == 0 && n <= 1000) {
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int* half = malloc(sizeof(int) * size);
    int* half_displs = malloc(sizeof(int) * size);
    for (int r = 0; r < size; ++r) half[r] = counts[r] / 2, half_displs[r] = displs[r] / 2;
    MPI_Allgatherv(x, counts[rank], MPI_INT, y, half, half_displs, pair, comm);
    free(half);
    free(half_displs);
    MPI_Type_free(&pair);
  } else {
    MPI_Allgatherv(x, counts[rank], MPI_INT, y, counts, displs, MPI_INT, comm);
  }
  Expect(y[displs[size - 1] + counts[size - 1] - 1] ==
             (size - 1) * 1000 + (counts[size - 1] - 1) % 1000, "allgatherv", round);

  /* Reduce_scatter over the same counts. */
  for (int i = 0; i < total; ++i) x[i] = 1;
  MPI_Reduce_scatter(x, y, counts, MPI_INT, MPI_SUM, comm);
  Expect(y[counts[rank] - 1] == size, "reduce_scatter", round);

  /* Alltoallv and alltoallw: rank i sends ((i + j) % 3) * n ints to j. */
  int sent = 0, received = 0;
  for (int j = 0; j < size; ++j) {
    scounts[j] = ((rank + j) % 3) * n;
    rcounts[j] = ((j + rank) % 3) * n;
    sdispls[j] = sent;
    rdispls[j] = received;
    sent += scounts[j];
    received += rcounts[j];
    types[j] = MPI_INT;
  }
  int* s = malloc(sizeof(int) * (size_t)(sent + 1));
  int* t = malloc(sizeof(int) * (size_t)(received + 1));
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < scounts[j]; ++i) s[sdispls[j] + i] = rank * 100 + j;
  MPI_Alltoallv(s, scounts, sdispls, MPI_INT, t, rcounts, rdispls, MPI_INT, comm);
  int ok = 1;
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < rcounts[j]; ++i) ok &= t[rdispls[j] + i] == j * 100 + rank;
  Expect(ok, "alltoallv", round);
  for (int j = 0; j < size; ++j) sdispls[j] *= (int)sizeof(int), rdispls[j] *= (int)sizeof(int);
  memset(t, 0, sizeof(int) * (size_t)(received + 1));
  MPI_Alltoallw(s, scounts, sdispls, types, t, rcounts, rdispls, types, comm);
  ok = 1;
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < rcounts[j]; ++i) ok &= t[rdispls[j] / (int)sizeof(int) + i] == j * 100 + rank;
  Expect(ok, "alltoallw", round);

  MPI_Barrier(comm);

  /* Exscan: rank 0's result is undefined and not checked. */
  for (int i = 0; i < n; ++i) x[i] = 1;
  MPI_Exscan(x, y, n, MPI_INT, MPI_SUM, comm);
  if (rank > 0) Expect(y[n - 1] == rank, "exscan", round);

  free(s);
  free(t);
  free(x);
  free(y);
  free(counts);
  free(displs);
  free(scounts);
  free(sdispls);
  free(rcounts);
  free(rdispls);
  free(types);
}

static void Round(MPI_Comm comm, int round) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* Sizes from 1 int to 64 KiB of ints, different every round. */
  static const int kCounts[] = {1, 3, 250, 1000, 4099, 16384};
  const int n = kCounts[round % 6];
  const int root = (round * 7) % size;
  int* a = malloc(sizeof(int) * n * size);
  int* b = malloc(sizeof(int) * n * size);

  /* Allreduce, in place every other round. */
  for (int i = 0; i < n; ++i) a[i] = rank + i;
  if (round % 2) {
    MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_INT, MPI_SUM, comm);
  } else {
    MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, comm);
    memcpy(a, b, sizeof(int) * n);
  }
  Expect(a[n - 1] == size * (n - 1) + size * (size - 1) / 2, "allreduce", round);

  /* Gather: non-roots pass garbage receive arguments and no buffer; an
   * in-place root every third round. */
  for (int i = 0; i < n; ++i) a[i] = rank * 100000 + i;
  if (rank == root) {
    if (round % 3 == 0) {
      for (int i = 0; i < n; ++i) b[root * n + i] = a[i];
      MPI_Gather(MPI_IN_PLACE, 12345, MPI_DOUBLE, b, n, MPI_INT, root, comm);
    } else {
      MPI_Gather(a, n, MPI_INT, b, n, MPI_INT, root, comm);
    }
    Expect(b[(size - 1) * n + n - 1] == (size - 1) * 100000 + n - 1, "gather", round);
  } else {
    MPI_Gather(a, n, MPI_INT, NULL, 54321, MPI_DOUBLE, root, comm);
  }

  /* Scatter: the mirror image. */
  if (rank == root) {
    for (int i = 0; i < n * size; ++i) a[i] = i;
    if (round % 3 == 1) {
      MPI_Scatter(a, n, MPI_INT, MPI_IN_PLACE, 777, MPI_CHAR, root, comm);
    } else {
      MPI_Scatter(a, n, MPI_INT, b, n, MPI_INT, root, comm);
      Expect(b[0] == rank * n, "scatter", round);
    }
  } else {
    MPI_Scatter(NULL, 999, MPI_DOUBLE, b, n, MPI_INT, root, comm);
    Expect(b[n - 1] == rank * n + n - 1, "scatter", round);
  }

  /* Bcast with the data described differently at the root. */
  if (rank == root) {
    for (int i = 0; i < n; ++i) a[i] = 7 * i;
    MPI_Datatype pairs;
    MPI_Type_contiguous(1, MPI_INT, &pairs);
    MPI_Type_commit(&pairs);
    MPI_Bcast(a, n, pairs, root, comm);
    MPI_Type_free(&pairs);
  } else {
    MPI_Bcast(a, n, MPI_INT, root, comm);
    Expect(a[n - 1] == 7 * (n - 1), "bcast", round);
  }

  /* Reduce, in place at the root only. */
  const int reduce_root = mpich ? 0 : root;
  for (int i = 0; i < n; ++i) a[i] = 1;
  if (rank == reduce_root) {
    MPI_Reduce(MPI_IN_PLACE, a, n, MPI_INT, MPI_SUM, reduce_root, comm);
    Expect(a[0] == size, "reduce", round);
  } else {
    MPI_Reduce(a, NULL, n, MPI_INT, MPI_SUM, reduce_root, comm);
  }

  /* Allgather and alltoall in place; reduce_scatter_block; scan. */
  for (int i = 0; i < n; ++i) a[rank * n + i] = rank;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, MPI_INT, comm);
  Expect(a[(size - 1) * n] == size - 1, "allgather", round);
  for (int i = 0; i < n * size; ++i) a[i] = rank;
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, MPI_INT, comm);
  Expect(a[(size - 1) * n] == size - 1, "alltoall", round);
  for (int i = 0; i < n * size; ++i) a[i] = 1;
  MPI_Reduce_scatter_block(a, b, n, MPI_INT, MPI_SUM, comm);
  Expect(b[n - 1] == size, "reduce_scatter_block", round);
  for (int i = 0; i < n; ++i) a[i] = 1;
  MPI_Scan(a, b, n, MPI_INT, MPI_SUM, comm);
  Expect(b[0] == rank + 1, "scan", round);
  free(a);
  free(b);
  Later(comm, round, n);
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank, size, rounds = 12;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--rounds")) rounds = atoi(argv[i + 1]);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length;
  MPI_Get_library_version(version, &length);
  mpich = strstr(version, "MPICH") != NULL;
  MPI_Comm comms[4];
  comms[0] = MPI_COMM_WORLD;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comms[1]);
  MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, size - rank, &comms[2]);
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[3]);
  for (int r = 0; r < rounds; ++r) {
    /* Interleave communicators in a different order every round. */
    for (int c = 0; c < 4; ++c) Round(comms[(c + r) % 4], r);
  }
  for (int c = 1; c < 4; ++c) MPI_Comm_free(&comms[c]);
  int total = 0;
  MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(total ? "mixed: %d wrong results\n" : "mixed: ok\n", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
