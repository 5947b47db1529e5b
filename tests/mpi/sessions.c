/* MPI-4 sessions (MPICH 4): no MPI_Init, a communicator made from the
   "mpi://WORLD" process set with MPI_Comm_create_from_group, collectives on
   it. The shim does not start without MPI_Init, so these calls must pass
   through to the library unchanged and correct. Prints "sessions: N
   processes, K wrong results" on rank 0. */
#include <mpi.h>
#include <stdio.h>

int main(void) {
  MPI_Session session;
  if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) != MPI_SUCCESS) return 10;
  MPI_Group group;
  MPI_Comm comm;
  if (MPI_Group_from_session_pset(session, "mpi://WORLD", &group) != MPI_SUCCESS) return 11;
  if (MPI_Comm_create_from_group(group, "colltune.sessions", MPI_INFO_NULL,
                                 MPI_ERRORS_RETURN, &comm) != MPI_SUCCESS) {
    return 12;
  }
  int rank, size, bad = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int i = 0; i < 20; ++i) {
    double x[3] = {rank, i, 1}, y[3];
    MPI_Allreduce(x, y, 3, MPI_DOUBLE, MPI_SUM, comm);
    if (y[0] != size * (size - 1) / 2.0 || y[1] != (double)i * size || y[2] != size) ++bad;
    int v = rank == 0 ? 7 * i : -1;
    MPI_Bcast(&v, 1, MPI_INT, 0, comm);
    if (v != 7 * i) ++bad;
    int all[64];
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, comm);
    for (int r = 0; r < size && r < 64; ++r) bad += all[r] != r;
  }
  int total = 0;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, comm);
  if (rank == 0) printf("sessions: %d processes, %d wrong results\n", size, total);
  MPI_Comm_free(&comm);
  MPI_Group_free(&group);
  MPI_Session_finalize(&session);
  return total == 0 ? 0 : 1;
}
