#include "db/store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/stats.h"
#include "db/rows.h"
#include "db/samples.h"

namespace colltune::db {
namespace {

struct Migration {
  int version;
  const char* name;
  const char* sql;
};

// Generated from db/migrations/*.sql by the BUILD rule `migrations_inc`.
constexpr Migration kMigrations[] = {
#include "db/migrations.inc"
};

// The migration that added measurements.lower_quartile_s (BackfillLowerQuartiles).
constexpr int kLowerQuartileMigration = 12;

absl::StatusOr<std::optional<Profile>> OneProfile(
    absl::StatusOr<std::optional<Statement>> row) {
  if (!row.ok()) return row.status();
  if (!row->has_value()) return std::optional<Profile>();
  return std::optional<Profile>(ProfileFromRow(**row));
}

}  // namespace

Store::Store(std::unique_ptr<Database> db, std::string path, bool read_only) {
  c_.db = std::move(db);
  c_.path = std::move(path);
  c_.read_only = read_only;
}

int Store::LatestSchemaVersion() {
  return kMigrations[sizeof kMigrations / sizeof kMigrations[0] - 1].version;
}

absl::StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& path) {
  // An existing file that cannot be written (for root: a read-only mount,
  // EROFS) is served read-only instead of failing on the -shm file SQLite
  // could not create next to it.
  const bool read_only = access(path.c_str(), F_OK) == 0 &&
                         access(path.c_str(), W_OK) != 0 &&
                         (errno == EROFS || errno == EACCES);
  if (read_only) {
    // Read-only means immutable, and an immutable open ignores the WAL: a
    // log left with content by a crash would silently lose its commits.
    struct stat wal;
    if (stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "database ", path, " is read-only and its write-ahead log ", path,
          "-wal holds commits not yet in it: make it writable once so that "
          "colltuned can recover them"));
    }
  }
  absl::StatusOr<std::unique_ptr<Database>> db =
      read_only ? Database::OpenImmutable(path) : Database::Open(path);
  if (!db.ok()) return db.status();
  std::unique_ptr<Store> store(new Store(std::move(*db), path, read_only));
  // Before anything else reads or writes it (the WAL switch writes the
  // header, migrations write tables): a damaged file stops the daemon here.
  if (absl::Status s = store->CheckIntegrity(); !s.ok()) return s;
  if (read_only) {
    if (absl::Status s = store->ReadSchemaVersion(); !s.ok()) return s;
    if (store->schema_version_ != LatestSchemaVersion()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "database ", path, " is read-only and at schema version ",
          store->schema_version_, ", this colltuned needs ",
          LatestSchemaVersion(), ": make it writable so that it can be migrated"));
    }
    return store;
  }
  // WAL lets the web view read while the daemon writes.
  {
    absl::StatusOr<Statement> wal =
        store->c_.db->Prepare("PRAGMA journal_mode=WAL");
    if (!wal.ok()) return wal.status();
    absl::StatusOr<bool> row = wal->Step();
    if (!row.ok()) return row.status();
    if (!*row || wal->Text(0) != "wal") {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot put ", path, " in WAL mode"));
    }
  }
  absl::Status s = store->c_.db->Execute(
      "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;");
  if (!s.ok()) return s;
  s = store->Migrate();
  if (!s.ok()) return s;
  return store;
}

// PRAGMA quick_check reads every page and checks each b-tree's structure
// (not that indexes match their tables, which integrity_check adds at many
// times the cost): what a torn or overwritten file shows. It costs one read
// of the file at start.
absl::Status Store::CheckIntegrity() {
  auto failed = [&](const absl::Status& s) {
    return IsCorruption(c_.db->LastErrorCode()) ? Corrupt(c_.path, std::string(s.message())) : s;
  };
  absl::StatusOr<Statement> q = c_.db->Prepare("PRAGMA quick_check(5)");
  if (!q.ok()) return failed(q.status());
  std::vector<std::string> problems;
  for (;;) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return failed(row.status());
    if (!*row) break;
    problems.push_back(q->Text(0));
  }
  if (problems.size() == 1 && problems[0] == "ok") return absl::OkStatus();
  return Corrupt(c_.path, absl::StrJoin(problems, "; "));
}

// The statement is finalized on return: a live one would block COMMIT.
absl::Status Store::ReadSchemaVersion() {
  absl::StatusOr<std::optional<Statement>> row =
      c_.db->FirstRow("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
  if (!row.ok()) return row.status();
  schema_version_ = row->has_value() ? static_cast<int>((*row)->Int(0)) : 0;
  return absl::OkStatus();
}

absl::Status Store::Migrate() {
  absl::Status s = c_.db->Execute(
      "CREATE TABLE IF NOT EXISTS schema_migrations ("
      " version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
      " applied_at TEXT NOT NULL)");
  if (!s.ok()) return s;
  if (s = ReadSchemaVersion(); !s.ok()) return s;
  if (schema_version_ > LatestSchemaVersion()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "database schema version ", schema_version_,
        " is newer than this colltuned understands (", LatestSchemaVersion(),
        ")"));
  }
  for (const Migration& m : kMigrations) {
    if (m.version <= schema_version_) continue;
    // A migration may rebuild a table others refer to (SQLite's procedure
    // for what ALTER TABLE cannot do): foreign keys are off around its
    // transaction, which the foreign key check must pass before it commits.
    if (s = c_.db->Execute("PRAGMA foreign_keys = OFF"); !s.ok()) return s;
    s = InTransaction([&]() -> absl::Status {
      absl::Status e = c_.db->Execute(m.sql);
      if (!e.ok()) return e;
      absl::StatusOr<std::optional<Statement>> broken =
          c_.db->FirstRow("PRAGMA foreign_key_check");
      if (!broken.ok()) return broken.status();
      if (broken->has_value()) {
        return absl::InternalError(absl::StrCat("leaves rows of table ", (*broken)->Text(0),
                                                " referring to missing rows"));
      }
      if (m.version == kLowerQuartileMigration) {
        if (e = BackfillLowerQuartiles(); !e.ok()) return e;
      }
      absl::StatusOr<Statement> ins = c_.db->Prepare(absl::StrCat(
          "INSERT INTO schema_migrations (version, name, applied_at) "
          "VALUES (?, ?, ",
          kNow, ")"));
      if (!ins.ok()) return ins.status();
      return ins->Bind(1, int64_t{m.version}).Bind(2, m.name).Run();
    });
    absl::Status on = c_.db->Execute("PRAGMA foreign_keys = ON");
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("migration ", m.version, " (",
                                                 m.name, "): ", s.message()));
    }
    if (!on.ok()) return on;
    schema_version_ = m.version;
  }
  return absl::OkStatus();
}

// Migration 12 added the lower quartile; the points stored before it get
// theirs from their samples, in the migration's transaction, so the engine's
// steadiness rule (which needs it) keeps applying to old campaigns.
absl::Status Store::BackfillLowerQuartiles() {
  absl::StatusOr<Statement> q = c_.db->Prepare(
      "SELECT id, samples FROM measurements WHERE lower_quartile_s IS NULL");
  if (!q.ok()) return q.status();
  std::vector<std::pair<int64_t, double>> filled;
  absl::Status each = q->EachRow([&](const Statement& row) {
    const std::vector<double> samples = DecodeSamples(row.Blob(1));
    if (!samples.empty()) filled.push_back({row.Int(0), LowerQuartile(samples)});
  });
  if (!each.ok()) return each;
  for (const auto& [id, lower] : filled) {
    absl::StatusOr<Statement> up =
        c_.db->Prepare("UPDATE measurements SET lower_quartile_s = ? WHERE id = ?");
    if (!up.ok()) return up.status();
    if (absl::Status s = up->Bind(1, lower).Bind(2, id).Run(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Store::InTransaction(const std::function<absl::Status()>& body) {
  if (c_.read_only) {
    // Said plainly rather than SQLite's "attempt to write a readonly
    // database"; callers keep what they wanted stored (colltune flush keeps
    // the report in its spool).
    return absl::FailedPreconditionError(absl::StrCat(
        "database ", c_.path, " is read-only (it could not be written when "
        "colltuned started): nothing can be stored, reads are served; make it "
        "writable and restart colltuned"));
  }
  if (c_.in_transaction) {
    return absl::FailedPreconditionError("transactions do not nest");
  }
  absl::StatusOr<Transaction> tx = Transaction::Begin(c_.db.get());
  if (!tx.ok()) return tx.status();
  c_.in_transaction = true;
  absl::Status s = body();
  c_.in_transaction = false;
  if (!s.ok()) return s;  // ~Transaction rolls back
  return tx->Commit();
}

absl::StatusOr<int64_t> Store::UpsertProfile(const ProfileKey& k) {
  if (absl::Status s = c_.RequireTransaction(); !s.ok()) return s;
  absl::StatusOr<std::optional<Statement>> row = c_.db->FirstRow(
      absl::StrCat(
          "INSERT INTO profiles (cluster, library, library_version, comm_size, "
          "nodes, ppn, placement, node_sizes, created_at, updated_at) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ",
          kNow, ", ", kNow,
          ") ON CONFLICT (cluster, library, library_version, comm_size, nodes, "
          "ppn, placement, node_sizes) DO UPDATE SET updated_at = excluded.updated_at "
          "RETURNING id"),
      k.cluster, k.library, k.library_version, k.comm_size, k.nodes, k.ppn, k.placement,
      k.node_sizes);
  if (!row.ok()) return row.status();
  if (!row->has_value()) return absl::InternalError("profile upsert returned no id");
  return (*row)->Int(0);
}

absl::StatusOr<std::vector<Profile>> Store::Profiles(std::string_view cluster,
                                                     std::string_view library) {
  absl::StatusOr<Statement> st = c_.db->Query(
      absl::StrCat("SELECT ", kProfileColumns,
                   " FROM profiles WHERE (?1 = '' OR cluster = ?1) AND "
                   "(?2 = '' OR library = ?2) ORDER BY cluster, library, "
                   "library_version, comm_size, nodes, ppn, placement, node_sizes"),
      cluster, library);
  if (!st.ok()) return st.status();
  std::vector<Profile> out;
  absl::Status each = st->EachRow([&](const Statement& row) {
    out.push_back(ProfileFromRow(*st));
  });
  if (!each.ok()) return each;
  return out;
}

absl::StatusOr<std::optional<Profile>> Store::GetProfile(int64_t id) {
  return OneProfile(
      c_.db->FirstRow(absl::StrCat("SELECT ", kProfileColumns, " FROM profiles WHERE id = ?"),
                      id));
}

absl::StatusOr<ProfileCounts> Store::Counts(int64_t profile_id) {
  absl::StatusOr<ProfileCounts> c = campaigns_.Counts(profile_id);
  if (!c.ok()) return c.status();
  absl::StatusOr<ProfileCounts> r = reports_.Counts(profile_id);
  if (!r.ok()) return r.status();
  c->job_reports = r->job_reports;
  c->last_report_at = r->last_report_at;
  return c;
}

absl::StatusOr<std::optional<Profile>> Store::FindProfile(const ProfileKey& k) {
  return OneProfile(c_.db->FirstRow(
      absl::StrCat("SELECT ", kProfileColumns,
                   " FROM profiles WHERE cluster = ? AND library = ? AND "
                   "library_version = ? AND comm_size = ? AND nodes = ? AND ppn = ? "
                   "AND placement = ? AND node_sizes = ?"),
      k.cluster, k.library, k.library_version, k.comm_size, k.nodes, k.ppn, k.placement,
      k.node_sizes));
}

}  // namespace colltune::db
