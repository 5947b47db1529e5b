// How the store's rows map to colltune's values, shared by the files of
// the store (store*.cc); not part of the store's interface.
#ifndef COLLTUNE_DB_ROWS_H_
#define COLLTUNE_DB_ROWS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/catalog.h"
#include "db/sqlite.h"
#include "db/profile.h"

namespace colltune::db {

// SQL for the current time, as the store writes every timestamp.
inline constexpr char kNow[] = "strftime('%Y-%m-%dT%H:%M:%fZ','now')";

inline std::string_view Name(Collective c) { return InfoOf(c).name; }
inline std::string_view Name(Algorithm a) { return InfoOf(a).name; }

// A column's collective or algorithm name; one this build does not know
// means the file was written by something else: data loss.
absl::StatusOr<Collective> CollectiveColumn(const std::string& s);
absl::StatusOr<Algorithm> AlgorithmColumn(const std::string& s, Collective c);
// Reads the (collective, algorithm) names of a row the same way.
absl::Status ReadNames(const Statement& st, int collective_column,
                       int algorithm_column, Collective* c, Algorithm* a);

// The columns ProfileFromRow reads, in its order.
inline constexpr char kProfileColumns[] =
    "id, cluster, library, library_version, comm_size, nodes, ppn, "
    "created_at, updated_at, placement, node_sizes";
Profile ProfileFromRow(const Statement& st);

// The error a damaged file gives (colltuned will not serve it).
absl::Status Corrupt(const std::string& path, const std::string& detail);
bool IsCorruption(int sqlite_code);

}  // namespace colltune::db

#endif  // COLLTUNE_DB_ROWS_H_
