/* Does MPI_Barrier synchronise? (tests/mpi/barrier_sync_test.sh)
 *
 * In each round every process sleeps a random time (different per process
 * and round, 0..--max-sleep-us), reads CLOCK_MONOTONIC (one clock for all
 * processes of a node), calls MPI_Barrier, and reads the clock again. A
 * barrier lets no process leave before the last one has entered, so in every
 * round the earliest exit must come after the latest entry:
 *   min over ranks(exit) >= max over ranks(entry).
 * The recorded entry precedes the real entry and the recorded exit follows
 * the real exit, so a correct barrier can never fail this check.
 *
 * Rounds run on MPI_COMM_WORLD and on a split communicator (two halves, the
 * ranks reversed in the second). The times are gathered with PMPI_Gather,
 * outside the collectives under test.
 *
 *   barrier_sync [--rounds N] [--max-sleep-us U] [--seed S] [--fake]
 *
 * --fake replaces MPI_Barrier by nothing: the check must then fail, which
 * shows that it can. Exit status 0 only if no round broke the rule; rank 0
 * prints one line per communicator ("... rounds, ... violations").
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t next(uint64_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* Runs the rounds on `comm`; returns the number of rounds that broke the
 * rule (at rank 0 of comm; 0 elsewhere) and sets *slack_ns (rank 0) to the
 * smallest min(exit) - max(entry) seen. */
static int run(MPI_Comm comm, int rounds, int max_sleep_us, uint64_t seed, int fake,
               int64_t* slack_ns) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int64_t* mine = malloc(sizeof(int64_t) * 2 * rounds);
  uint64_t s = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)rank * 0x632be59bd9b4e019ULL + 1;
  for (int i = 0; i < 20; ++i) next(&s);
  for (int r = 0; r < rounds; ++r) {
    sleep_us((long)(next(&s) % (uint64_t)(max_sleep_us + 1)));
    mine[2 * r] = now_ns();
    if (!fake) MPI_Barrier(comm);
    mine[2 * r + 1] = now_ns();
  }
  int64_t* all = rank == 0 ? malloc(sizeof(int64_t) * 2 * rounds * size) : NULL;
  PMPI_Gather(mine, 2 * rounds, MPI_INT64_T, all, 2 * rounds, MPI_INT64_T, 0, comm);
  int violations = 0;
  if (rank == 0) {
    *slack_ns = INT64_MAX;
    for (int r = 0; r < rounds; ++r) {
      int64_t max_entry = INT64_MIN, min_exit = INT64_MAX;
      for (int q = 0; q < size; ++q) {
        const int64_t entry = all[(int64_t)q * 2 * rounds + 2 * r];
        const int64_t exit_ = all[(int64_t)q * 2 * rounds + 2 * r + 1];
        if (entry > max_entry) max_entry = entry;
        if (exit_ < min_exit) min_exit = exit_;
      }
      if (min_exit < max_entry) ++violations;
      if (min_exit - max_entry < *slack_ns) *slack_ns = min_exit - max_entry;
    }
  }
  free(all);
  free(mine);
  return violations;
}

int main(int argc, char** argv) {
  int rounds = 200, max_sleep_us = 2000, fake = 0;
  uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--max-sleep-us") && i + 1 < argc) max_sleep_us = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--fake")) fake = 1;
    else {
      fprintf(stderr, "barrier_sync: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  MPI_Init(&argc, &argv);
  int wrank, wsize;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, wrank < (wsize + 1) / 2, -wrank, &half);

  int64_t slack = 0;
  int bad = 0;
  int v = run(MPI_COMM_WORLD, rounds, max_sleep_us, seed, fake, &slack);
  if (wrank == 0) {
    printf("MPI_COMM_WORLD (%d processes): %d rounds, %d violations, smallest slack %.1f us\n",
           wsize, rounds, v, slack / 1e3);
  }
  bad |= v != 0;
  int hrank, hsize;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  v = run(half, rounds, max_sleep_us, seed + 7, fake, &slack);
  if (hrank == 0) {
    printf("split communicator (%d processes, world rank %d first): %d rounds, %d violations, "
           "smallest slack %.1f us\n",
           hsize, wrank, rounds, v, slack / 1e3);
  }
  bad |= v != 0;
  /* Every rank exits with the verdict of all (violations are known at the
   * communicators' rank 0 only). */
  int any = 0;
  PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return any ? 1 : 0;
}
