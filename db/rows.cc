#include "db/rows.h"

#include "absl/strings/str_cat.h"

namespace colltune::db {

absl::StatusOr<Collective> CollectiveColumn(const std::string& s) {
  auto c = ParseCollective(s);
  if (!c) return absl::DataLossError(absl::StrCat("unknown collective in database: ", s));
  return *c;
}

absl::StatusOr<Algorithm> AlgorithmColumn(const std::string& s, Collective c) {
  auto a = ParseAlgorithm(s, c);
  if (!a) return absl::DataLossError(absl::StrCat("unknown algorithm in database: ", s));
  return *a;
}

// Reads the (collective, algorithm) names of a row; a name this build does
// not know means the file was written by something else: data loss.
absl::Status ReadNames(const Statement& st, int collective_column,
                       int algorithm_column, Collective* c, Algorithm* a) {
  absl::StatusOr<Collective> collective = CollectiveColumn(st.Text(collective_column));
  if (!collective.ok()) return collective.status();
  absl::StatusOr<Algorithm> algorithm =
      AlgorithmColumn(st.Text(algorithm_column), *collective);
  if (!algorithm.ok()) return algorithm.status();
  *c = *collective;
  *a = *algorithm;
  return absl::OkStatus();
}

Profile ProfileFromRow(const Statement& st) {
  Profile p;
  p.id = st.Int(0);
  p.key.cluster = st.Text(1);
  p.key.library = st.Text(2);
  p.key.library_version = st.Text(3);
  p.key.comm_size = static_cast<int>(st.Int(4));
  p.key.nodes = static_cast<int>(st.Int(5));
  p.key.ppn = static_cast<int>(st.Int(6));
  p.created_at = st.Text(7);
  p.updated_at = st.Text(8);
  p.key.placement = st.Text(9);
  p.key.node_sizes = st.Text(10);
  return p;
}

// A damaged file is never served: what it would answer is garbage, and
// writing to it spreads the damage. The message says what the operator can
// do, because colltuned cannot repair it.
absl::Status Corrupt(const std::string& path, const std::string& detail) {
  return absl::DataLossError(absl::StrCat(
      "database ", path, " is corrupt (", detail,
      "); colltuned will not serve it. Restore it from a backup, or move it "
      "aside together with its -wal and -shm files: colltuned then creates a "
      "new, empty database (profiles, campaigns and job reports start over)"));
}

bool IsCorruption(int code) { return code == SQLITE_CORRUPT || code == SQLITE_NOTADB; }

}  // namespace colltune::db
