// MPICH: the collective-selection JSON of MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE.
// The file replaces MPICH's built-in tree: a collective missing from it fails
// an assertion on its first call (a file holding allreduce alone aborts in
// MPI_Barrier), and 4.0.2 has no leaf meaning "decide as usual"
// (MPIR_<Coll>_allcomm_auto searches the tree, it is not a leaf). A minimal
// file would have to name an algorithm for all 44 collectives and change
// MPICH's choices everywhere colltune kept the default. So the export is the
// built-in tree (read from the library, BuiltinTree) with the tuned
// collectives' intra-communicator branches replaced: communicator-size
// conditions, then message-size conditions, whose leaves are the native
// algorithms behind their restrictions, or MPICH's own branch where colltune
// keeps the default.

#ifndef COLLTUNE_CLI_TUNING_FILE_MPICH_JSON_H_
#define COLLTUNE_CLI_TUNING_FILE_MPICH_JSON_H_

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "cli/tuning_file/coverage.h"

namespace colltune::cli::tuning_file {

// MPICH takes the first sibling whose condition holds, so key order is
// meaning: the tree is read, changed and written in order.
using Json = nlohmann::ordered_json;

// The tree to start from (`base_file`, --mpich-base, else the built-in tree
// of the MPICH library at `library`, --mpich-library, or found), and in
// *library_bytes the library's bytes to check algorithm names against.
absl::StatusOr<Json> MpichBase(const std::string& library, const std::string& base_file,
                               std::string* library_bytes, Notes* notes);

// `tree` with the intra-communicator branches of `colls` replaced.
absl::StatusOr<std::string> MpichJson(
    Json tree, const std::vector<std::pair<Collective, std::vector<Row>>>& colls,
    Notes* notes);

// A file's bytes.
absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace colltune::cli::tuning_file

#endif  // COLLTUNE_CLI_TUNING_FILE_MPICH_JSON_H_
