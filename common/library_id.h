// Turns the string of MPI_Get_library_version into the (library, version)
// pair that keys profiles, e.g. "Open MPI v4.1.4, package: ..." into
// {"Open MPI", "4.1.4"}.
#ifndef COLLTUNE_COMMON_LIBRARY_ID_H_
#define COLLTUNE_COMMON_LIBRARY_ID_H_

#include <string>
#include <string_view>

namespace colltune {

struct LibraryId {
  std::string name;
  std::string version;
};

// Knows Open MPI, MPICH, Intel MPI, MVAPICH and Cray MPICH; any other library
// is named by the first line of its string (printable ASCII, at most 64
// characters) with an empty version.
LibraryId ParseLibraryVersion(std::string_view text);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_LIBRARY_ID_H_
