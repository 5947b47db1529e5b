// Preloaded into a job to make gethostname fail on one rank (the rank named
// by NO_HOSTNAME_RANK, as mpirun numbers it), as it does where a process
// cannot read its UTS name: the shim must then count the job as one node.
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

int gethostname(char* name, size_t len) {
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  const char* fail = getenv("NO_HOSTNAME_RANK");
  if (rank != NULL && fail != NULL && strcmp(rank, fail) == 0) {
    errno = EPERM;
    return -1;
  }
  struct utsname u;
  if (uname(&u) != 0) return -1;
  if (strlen(u.nodename) >= len) {
    errno = ENAMETOOLONG;
    return -1;
  }
  strcpy(name, u.nodename);
  return 0;
}
