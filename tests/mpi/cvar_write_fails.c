/* Preloaded after the shim (which finds the library's PMPI_ functions with
 * RTLD_NEXT, so this comes between them): on one rank (the launcher's rank
 * variable equal to COLLTUNE_TEST_FAIL_RANK) a step of forcing an algorithm
 * fails, as a library that refuses it on some processes would.
 * COLLTUNE_TEST_FAIL=cvar_write: every control-variable write fails, through
 * MPI_T or (Open MPI) through the MCA variable function MPI_T calls, which
 * the shim uses there (shim/native/controls.h).
 * COLLTUNE_TEST_FAIL=comm_create: MPI_Comm_create (which makes the shadow
 * communicator an Open MPI algorithm is forced on) returns an error, after
 * taking part in the collective call as every rank must.
 * COLLTUNE_TEST_MPIT_CALLS=1 (any rank): "MPI_T_init_thread called" on
 * stderr each time the tool interface is started. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int FailsHere(const char* what) {
  const char* want = getenv("COLLTUNE_TEST_FAIL_RANK");
  const char* mode = getenv("COLLTUNE_TEST_FAIL");
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  if (rank == NULL) rank = getenv("PMI_RANK");
  return want != NULL && rank != NULL && mode != NULL && strcmp(mode, what) == 0 &&
         strcmp(want, rank) == 0;
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  if (FailsHere("cvar_write")) return MPI_T_ERR_CVAR_SET_NEVER;
  int (*next)(MPI_T_cvar_handle, const void*) =
      (int (*)(MPI_T_cvar_handle, const void*))dlsym(RTLD_NEXT, "PMPI_T_cvar_write");
  return next(handle, buf);
}

int mca_base_var_set_value(int vari, const void* value, size_t size, int source,
                           const char* file) {
  if (FailsHere("cvar_write")) return -1;
  int (*next)(int, const void*, size_t, int, const char*) =
      (int (*)(int, const void*, size_t, int, const char*))dlsym(RTLD_NEXT,
                                                                 "mca_base_var_set_value");
  return next == NULL ? -1 : next(vari, value, size, source, file);
}

int PMPI_T_init_thread(int required, int* provided) {
  const char* say = getenv("COLLTUNE_TEST_MPIT_CALLS");
  if (say != NULL && strcmp(say, "1") == 0) fprintf(stderr, "MPI_T_init_thread called\n");
  int (*next)(int, int*) = (int (*)(int, int*))dlsym(RTLD_NEXT, "PMPI_T_init_thread");
  return next(required, provided);
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* out) {
  int (*next)(MPI_Comm, MPI_Group, MPI_Comm*) =
      (int (*)(MPI_Comm, MPI_Group, MPI_Comm*))dlsym(RTLD_NEXT, "PMPI_Comm_create");
  const int rc = next(comm, group, out);
  if (rc != MPI_SUCCESS || !FailsHere("comm_create")) return rc;
  if (*out != MPI_COMM_NULL) PMPI_Comm_free(out);
  *out = MPI_COMM_NULL;
  return MPI_ERR_INTERN;
}
