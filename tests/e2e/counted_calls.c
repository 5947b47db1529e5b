/* A job that calls non-blocking, persistent (MPI-4 libraries) and
 * neighbourhood collectives a known number of times, checks every result,
 * and prints its own count of the calls, summed over ranks, per collective
 * and message-size bucket (common/histogram.h: bucket 0 holds 0 bytes,
 * bucket b holds [2^(b-1), 2^b - 1]), as lines
 *   COUNT <name> <bucket> <calls>
 * on rank 0, then "results verified". counted_calls_test.sh compares these
 * lines with what `colltune jobs` shows of the job's report.
 *
 * Sizes per call (the shim's key, common/counted.h): iallreduce 4 doubles =
 * 32 B, ibcast 100 ints = 400 B, ibarrier 0, neighbor_alltoall 2 ints per
 * neighbour = 8 B, ineighbor_allgather 1 int = 4 B, neighbor_alltoallv 0
 * (v variants count at 0 bytes), iallreduce on an inter-communicator 1 int =
 * 4 B, allreduce_init 16 ints = 64 B, neighbor_alltoall_init 2 ints = 8 B,
 * barrier_init 0, bcast_init 8 doubles = 64 B; each MPI_Start of a
 * persistent collective request counts as <name>_start in its
 * initialization's bucket, an MPI_Startall once per persistent collective
 * request in it (point-to-point requests in it, and started alone, count
 * nothing). Persistent collectives are MPI-4's MPI_*_init (MPICH 4) or Open
 * MPI 4.1's MPIX_*_init (its pcollreq extension).
 * Rank r makes (r % 2) more ibcast calls on a duplicate of MPI_COMM_SELF
 * than the others: counts are per rank, summed. */
#include <mpi.h>
#if defined(OPEN_MPI)
#include <mpi-ext.h>
#endif
#if MPI_VERSION >= 4
#define PERSISTENT(name) MPI_##name
#define HAVE_PERSISTENT 1
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PERSISTENT(name) MPIX_##name
#define HAVE_PERSISTENT 1
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxCells = 32 };
static struct {
  char name[40];
  int bucket;
  long calls;
} cells[kMaxCells];
static int ncells = 0;
static int failures = 0;

static int Bucket(long bytes) {
  int b = 0;
  while (bytes > 0) {
    ++b;
    bytes >>= 1;
  }
  return b;
}

static void Count(const char* name, long bytes) {
  const int bucket = Bucket(bytes);
  for (int i = 0; i < ncells; ++i) {
    if (strcmp(cells[i].name, name) == 0 && cells[i].bucket == bucket) {
      ++cells[i].calls;
      return;
    }
  }
  snprintf(cells[ncells].name, sizeof cells[ncells].name, "%s", name);
  cells[ncells].bucket = bucket;
  cells[ncells].calls = 1;
  ++ncells;
}

static void Expect(int ok, const char* what, int rank) {
  if (!ok) {
    fprintf(stderr, "rank %d: wrong result of %s\n", rank, what);
    ++failures;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Request req;

  /* 7 x MPI_Iallreduce of 4 doubles. */
  for (int it = 0; it < 7; ++it) {
    double in[4], out[4];
    for (int i = 0; i < 4; ++i) in[i] = rank + i + it;
    MPI_Iallreduce(in, out, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    Count("iallreduce", 4 * sizeof(double));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int ok = 1;
    for (int i = 0; i < 4; ++i) {
      ok &= out[i] == (double)size * (size - 1) / 2 + (double)size * (i + it);
    }
    Expect(ok, "iallreduce", rank);
  }

  /* 5 x MPI_Ibcast of 100 ints from a rotating root. */
  for (int it = 0; it < 5; ++it) {
    int buf[100];
    const int root = it % size;
    for (int i = 0; i < 100; ++i) buf[i] = rank == root ? 1000 * it + i : -1;
    MPI_Ibcast(buf, 100, MPI_INT, root, MPI_COMM_WORLD, &req);
    Count("ibcast", 100 * sizeof(int));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int ok = 1;
    for (int i = 0; i < 100; ++i) ok &= buf[i] == 1000 * it + i;
    Expect(ok, "ibcast", rank);
  }
  /* Odd ranks: one more Ibcast, alone, on a duplicate of MPI_COMM_SELF. */
  if (rank % 2 == 1) {
    MPI_Comm self;
    MPI_Comm_dup(MPI_COMM_SELF, &self);
    int v = 42;
    MPI_Ibcast(&v, 1, MPI_INT, 0, self, &req);
    Count("ibcast", sizeof(int));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    Expect(v == 42, "ibcast on self", rank);
    MPI_Comm_free(&self);
  }

  /* 3 x MPI_Ibarrier. */
  for (int it = 0; it < 3; ++it) {
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    Count("ibarrier", 0);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }

  /* A periodic ring as a cartesian communicator: neighbours are
   * (rank - 1) and (rank + 1), in that order. */
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  int me, left, right;
  MPI_Comm_rank(ring, &me);
  MPI_Cart_shift(ring, 0, 1, &left, &right);

  /* 4 x MPI_Neighbor_alltoall of 2 ints per neighbour. */
  for (int it = 0; it < 4; ++it) {
    int send[4] = {me * 10 + it, me * 10 + it + 1, me * 10 + it + 2, me * 10 + it + 3};
    int recv[4] = {-1, -1, -1, -1};
    MPI_Neighbor_alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, ring);
    Count("neighbor_alltoall", 2 * sizeof(int));
    /* From the left neighbour its block for the right (elements 2, 3), from
     * the right neighbour its block for the left (elements 0, 1). */
    Expect(recv[0] == left * 10 + it + 2 && recv[1] == left * 10 + it + 3 &&
               recv[2] == right * 10 + it && recv[3] == right * 10 + it + 1,
           "neighbor_alltoall", rank);
  }

  /* 2 x MPI_Ineighbor_allgather of 1 int. */
  for (int it = 0; it < 2; ++it) {
    int send = me + 100 * it, recv[2] = {-1, -1};
    MPI_Ineighbor_allgather(&send, 1, MPI_INT, recv, 1, MPI_INT, ring, &req);
    Count("ineighbor_allgather", sizeof(int));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    Expect(recv[0] == left + 100 * it && recv[1] == right + 100 * it,
           "ineighbor_allgather", rank);
  }

  /* 1 x MPI_Neighbor_alltoallv (counted at 0 bytes). */
  {
    int send[2] = {me, me}, recv[2] = {-1, -1};
    int counts[2] = {1, 1}, displs[2] = {0, 1};
    MPI_Neighbor_alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                           ring);
    Count("neighbor_alltoallv", 0);
    Expect(recv[0] == left && recv[1] == right, "neighbor_alltoallv", rank);
  }

  /* 2 x MPI_Iallreduce on an inter-communicator: even and odd ranks. */
  if (size >= 2) {
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
    int remote_sum = 0;
    for (int r = 0; r < size; ++r) {
      if (r % 2 != rank % 2) remote_sum += r;
    }
    for (int it = 0; it < 2; ++it) {
      int in = rank, out = -1;
      MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, inter, &req);
      Count("iallreduce", sizeof(int));
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      Expect(out == remote_sum, "iallreduce on an inter-communicator", rank);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }

#if HAVE_PERSISTENT
  /* Persistent: 1 x MPI_Allreduce_init of 16 ints, started 6 times. */
  {
    int in[16], out[16];
    PERSISTENT(Allreduce_init)(in, out, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                               &req);
    Count("allreduce_init", 16 * sizeof(int));
    for (int it = 0; it < 6; ++it) {
      for (int i = 0; i < 16; ++i) in[i] = rank * it + i;
      MPI_Start(&req);
      Count("allreduce_init_start", 16 * sizeof(int));
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      int ok = 1;
      for (int i = 0; i < 16; ++i) ok &= out[i] == it * size * (size - 1) / 2 + size * i;
      Expect(ok, "allreduce_init started", rank);
    }
    MPI_Request_free(&req);
  }
  /* 1 x MPI_Neighbor_alltoall_init of 2 ints per neighbour, started 3 times. */
  {
    int send[4], recv[4];
    PERSISTENT(Neighbor_alltoall_init)(send, 2, MPI_INT, recv, 2, MPI_INT, ring, MPI_INFO_NULL,
                                       &req);
    Count("neighbor_alltoall_init", 2 * sizeof(int));
    for (int it = 0; it < 3; ++it) {
      for (int i = 0; i < 4; ++i) send[i] = me * 10 + it + i;
      MPI_Start(&req);
      Count("neighbor_alltoall_init_start", 2 * sizeof(int));
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      Expect(recv[0] == left * 10 + it + 2 && recv[1] == left * 10 + it + 3 &&
                 recv[2] == right * 10 + it && recv[3] == right * 10 + it + 1,
             "neighbor_alltoall_init started", rank);
    }
    MPI_Request_free(&req);
  }
  /* MPI_Startall, 4 times, of a barrier_init, a bcast_init of 8 doubles
   * and a persistent send/receive pair around the ring (not counted). */
  {
    MPI_Request reqs[4];
    double bc[8];
    int sendv = 0, recvv = -1;
    PERSISTENT(Barrier_init)(MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]);
    Count("barrier_init", 0);
    PERSISTENT(Bcast_init)(bc, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]);
    Count("bcast_init", 8 * sizeof(double));
    MPI_Send_init(&sendv, 1, MPI_INT, right, 3, ring, &reqs[2]);
    MPI_Recv_init(&recvv, 1, MPI_INT, left, 3, ring, &reqs[3]);
    for (int it = 0; it < 4; ++it) {
      for (int i = 0; i < 8; ++i) bc[i] = rank == 0 ? 10.0 * it + i : -1.0;
      sendv = 100 * it + me;
      MPI_Startall(4, reqs);
      Count("barrier_init_start", 0);
      Count("bcast_init_start", 8 * sizeof(double));
      MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
      int ok = recvv == 100 * it + left;
      for (int i = 0; i < 8; ++i) ok &= bc[i] == 10.0 * it + i;
      Expect(ok, "startall of persistent collectives and point-to-point", rank);
    }
    for (int i = 0; i < 4; ++i) MPI_Request_free(&reqs[i]);
  }
  /* Freed collective requests are forgotten: point-to-point persistent
   * requests made now (perhaps at the same handles) count nothing. */
  {
    MPI_Request pair[2];
    int sendv = 0, recvv = -1;
    for (int round = 0; round < 2; ++round) {
      MPI_Send_init(&sendv, 1, MPI_INT, right, 4, ring, &pair[0]);
      MPI_Recv_init(&recvv, 1, MPI_INT, left, 4, ring, &pair[1]);
      for (int it = 0; it < 2; ++it) {
        sendv = 7 * it + me + round;
        MPI_Start(&pair[1]);
        MPI_Start(&pair[0]);
        MPI_Waitall(2, pair, MPI_STATUSES_IGNORE);
        Expect(recvv == 7 * it + left + round, "persistent send/receive", rank);
      }
      MPI_Request_free(&pair[0]);
      MPI_Request_free(&pair[1]);
    }
  }
#endif
  MPI_Comm_free(&ring);

  /* Every rank's cells to rank 0, summed (the cells' order may differ
   * between ranks: rank 0 asks for each of the union in turn). */
  int total_failures = 0;
  MPI_Reduce(&failures, &total_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) {
    if (rank == r) {
      MPI_Send(&ncells, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
      MPI_Send(cells, (int)sizeof(cells[0]) * ncells, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    } else if (rank == 0) {
      int n = 0;
      MPI_Recv(&n, 1, MPI_INT, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      char theirs[sizeof(cells)];
      MPI_Recv(theirs, (int)sizeof(cells[0]) * n, MPI_BYTE, r, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      for (int i = 0; i < n; ++i) {
        const char* p = theirs + i * sizeof(cells[0]);
        int found = 0;
        for (int j = 0; j < ncells; ++j) {
          if (strcmp(cells[j].name, p) == 0 &&
              cells[j].bucket == ((const typeof(cells[0])*)p)->bucket) {
            cells[j].calls += ((const typeof(cells[0])*)p)->calls;
            found = 1;
          }
        }
        if (!found) memcpy(&cells[ncells++], p, sizeof(cells[0]));
      }
    }
  }
  if (rank == 0) {
    for (int i = 0; i < ncells; ++i) {
      printf("COUNT %s %d %ld\n", cells[i].name, cells[i].bucket, cells[i].calls);
    }
    if (total_failures == 0) printf("results verified\n");
    fflush(stdout);
  }
  MPI_Finalize();
  return total_failures == 0 ? 0 : 1;
}
