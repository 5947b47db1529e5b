/* colltune-datatype-layouts: seed 003's guidelines measured on this machine.
 *
 * For MPI_Bcast and MPI_Allgather of derived datatypes in seed 003's layouts
 * (tiled: A ints a block, extent A+2 ints; struct: {int, double} pairs with
 * their gap), at block sizes A and message sizes (the data's bytes), it times
 *   derived     the call with (count, type), as the program makes it
 *   packed      MPI_Pack, the call on MPI_PACKED bytes, MPI_Unpack (GL2/GL3)
 *   contiguous  the call with (1, MPI_Type_contiguous(count, type)) (GL1)
 *   library     the derived call made to PMPI_ directly: the library's own
 *               path even under the shim
 * each a loop of back-to-back calls (the slowest rank's time per call),
 * rounds interleaved, the median round printed as
 *   COLL LAYOUT A=N BYTES derived_us X packed_us Y contiguous_us Z library_us W
 * Run natively it lists the library's violations (packed or contiguous
 * faster than derived); run under the shim with COLLTUNE_FORCE naming a
 * datatype mock-up, its derived column is the repair.
 *
 *   colltune-datatype-layouts [--calls 50] [--rounds 5] */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxRounds = 99 };

typedef struct {
  const char* name;
  int block;  /* A: elements a block (struct: pairs) */
} Layout;

static MPI_Datatype MakeType(const Layout* l, int64_t bytes, int* count) {
  MPI_Datatype t;
  if (strcmp(l->name, "tiled") == 0) {
    /* one element = one block of A ints in an extent of A+2 ints */
    MPI_Datatype v;
    MPI_Type_vector(1, l->block, l->block + 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)(l->block + 2) * sizeof(int), &t);
    MPI_Type_free(&v);
    *count = (int)(bytes / ((int64_t)l->block * sizeof(int)));
  } else {
    /* one element = A {int, double} pairs, 4 bytes of gap each */
    struct Pair { int i; double d; };
    int lens[2] = {1, 1};
    MPI_Aint displs[2] = {offsetof(struct Pair, i), offsetof(struct Pair, d)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, pair, resized;
    MPI_Type_create_struct(2, lens, displs, types, &pair);
    MPI_Type_create_resized(pair, 0, sizeof(struct Pair), &resized);
    MPI_Type_contiguous(l->block, resized, &t);
    MPI_Type_free(&pair);
    MPI_Type_free(&resized);
    *count = (int)(bytes / ((int64_t)l->block * (sizeof(int) + sizeof(double))));
  }
  MPI_Type_commit(&t);
  if (*count < 1) *count = 1;
  return t;
}

typedef struct {
  int allgather; /* else bcast */
  int count, p, rank;
  MPI_Datatype type, whole; /* whole = contiguous(count, type) */
  MPI_Aint extent;
  char *buf, *recv, *packed, *packed_all;
  int packed_size;
} Case;

enum { kVariants = 4 };

/* One call of variant v: 0 derived, 1 packed, 2 contiguous, 3 library. */
static void Call(Case* c, int v) {
  MPI_Comm comm = MPI_COMM_WORLD;
  if (!c->allgather) {
    if (v == 0) MPI_Bcast(c->buf, c->count, c->type, 0, comm);
    if (v == 3) PMPI_Bcast(c->buf, c->count, c->type, 0, comm);
    if (v == 2) MPI_Bcast(c->buf, 1, c->whole, 0, comm);
    if (v == 1) {
      int pos = 0;
      if (c->rank == 0) MPI_Pack(c->buf, c->count, c->type, c->packed, c->packed_size, &pos, comm);
      MPI_Bcast(c->packed, c->packed_size, MPI_PACKED, 0, comm);
      pos = 0;
      if (c->rank != 0) MPI_Unpack(c->packed, c->packed_size, &pos, c->buf, c->count, c->type, comm);
    }
    return;
  }
  if (v == 0) MPI_Allgather(c->buf, c->count, c->type, c->recv, c->count, c->type, comm);
  if (v == 3) PMPI_Allgather(c->buf, c->count, c->type, c->recv, c->count, c->type, comm);
  if (v == 2) MPI_Allgather(c->buf, 1, c->whole, c->recv, 1, c->whole, comm);
  if (v == 1) {
    int pos = 0;
    MPI_Pack(c->buf, c->count, c->type, c->packed, c->packed_size, &pos, comm);
    MPI_Allgather(c->packed, c->packed_size, MPI_PACKED, c->packed_all, c->packed_size,
                  MPI_PACKED, comm);
    for (int i = 0; i < c->p; ++i) {
      pos = 0;
      MPI_Unpack(c->packed_all + (size_t)i * c->packed_size, c->packed_size, &pos,
                 c->recv + (size_t)i * c->count * c->extent, c->count, c->type, comm);
    }
  }
}

static int Cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int calls = 50, rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--calls") == 0) calls = atoi(argv[i + 1]);
    if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);
  }
  if (calls < 1 || rounds < 1 || rounds > kMaxRounds) {
    fprintf(stderr, "usage: colltune-datatype-layouts [--calls N] [--rounds 1..99]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  Case c;
  memset(&c, 0, sizeof c);
  MPI_Comm_size(MPI_COMM_WORLD, &c.p);
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  const Layout layouts[] = {{"tiled", 2}, {"tiled", 10}, {"tiled", 100},
                            {"struct", 2}, {"struct", 100}};
  const int64_t sizes[] = {32768, 1048576};
  for (int coll = 0; coll < 2; ++coll) {
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; ++l) {
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        c.allgather = coll;
        c.type = MakeType(&layouts[l], sizes[s], &c.count);
        MPI_Type_contiguous(c.count, c.type, &c.whole);
        MPI_Type_commit(&c.whole);
        MPI_Aint lb;
        MPI_Type_get_extent(c.type, &lb, &c.extent);
        MPI_Pack_size(c.count, c.type, MPI_COMM_WORLD, &c.packed_size);
        const size_t span = (size_t)c.count * c.extent;
        c.buf = calloc(span, 1);
        c.recv = calloc(span * c.p, 1);
        c.packed = malloc(c.packed_size);
        c.packed_all = malloc((size_t)c.packed_size * c.p);
        for (size_t b = 0; b < span; ++b) c.buf[b] = (char)(b * 7 + c.rank);
        double t[kVariants][kMaxRounds];
        for (int r = 0; r < rounds; ++r) {
          for (int k = 0; k < kVariants; ++k) {
            const int v = (k + r) % kVariants; /* interleaved, rotating order */
            for (int w = 0; w < 3; ++w) Call(&c, v);
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            for (int i = 0; i < calls; ++i) Call(&c, v);
            double mine = (MPI_Wtime() - t0) / calls * 1e6, slowest = 0;
            MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            t[v][r] = slowest;
          }
        }
        if (c.rank == 0) {
          double med[kVariants];
          for (int v = 0; v < kVariants; ++v) {
            qsort(t[v], rounds, sizeof(double), Cmp);
            med[v] = t[v][rounds / 2];
          }
          printf("%s %s A=%d %lld derived_us %.2f packed_us %.2f contiguous_us %.2f "
                 "library_us %.2f\n",
                 coll ? "allgather" : "bcast", layouts[l].name, layouts[l].block,
                 (long long)sizes[s], med[0], med[1], med[2], med[3]);
          fflush(stdout);
        }
        free(c.buf);
        free(c.recv);
        free(c.packed);
        free(c.packed_all);
        MPI_Type_free(&c.whole);
        MPI_Type_free(&c.type);
      }
    }
  }
  MPI_Finalize();
  return 0;
}
