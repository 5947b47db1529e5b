#include "db/store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/stats.h"

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

constexpr char kNow[] = "strftime('%Y-%m-%dT%H:%M:%fZ','now')";

// Samples are stored as little-endian float32: half the space of doubles,
// and far more precision than latency measurements have.
std::string EncodeSamples(const std::vector<double>& samples) {
  std::string out(samples.size() * 4, '\0');
  for (size_t i = 0; i < samples.size(); ++i) {
    float f = static_cast<float>(samples[i]);
    uint32_t bits;
    memcpy(&bits, &f, 4);
    for (int b = 0; b < 4; ++b) out[i * 4 + b] = static_cast<char>(bits >> (8 * b));
  }
  return out;
}

std::vector<double> DecodeSamples(const std::string& blob) {
  std::vector<double> out(blob.size() / 4);
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) {
      bits |= static_cast<uint32_t>(static_cast<unsigned char>(blob[i * 4 + b]))
              << (8 * b);
    }
    float f;
    memcpy(&f, &bits, 4);
    out[i] = f;
  }
  return out;
}

std::string_view Name(Collective c) { return InfoOf(c).name; }
std::string_view Name(Algorithm a) { return InfoOf(a).name; }

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
  return p;
}

constexpr char kProfileColumns[] =
    "id, cluster, library, library_version, comm_size, nodes, ppn, "
    "created_at, updated_at";

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

}  // namespace

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
  std::unique_ptr<Store> store(new Store(std::move(*db)));
  store->path_ = path;
  store->read_only_ = read_only;
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
        store->db_->Prepare("PRAGMA journal_mode=WAL");
    if (!wal.ok()) return wal.status();
    absl::StatusOr<bool> row = wal->Step();
    if (!row.ok()) return row.status();
    if (!*row || wal->Text(0) != "wal") {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot put ", path, " in WAL mode"));
    }
  }
  absl::Status s = store->db_->Execute(
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
    return IsCorruption(db_->LastErrorCode()) ? Corrupt(path_, std::string(s.message())) : s;
  };
  absl::StatusOr<Statement> q = db_->Prepare("PRAGMA quick_check(5)");
  if (!q.ok()) return failed(q.status());
  std::vector<std::string> problems;
  for (;;) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return failed(row.status());
    if (!*row) break;
    problems.push_back(q->Text(0));
  }
  if (problems.size() == 1 && problems[0] == "ok") return absl::OkStatus();
  return Corrupt(path_, absl::StrJoin(problems, "; "));
}

// The statement is finalized on return: a live one would block COMMIT.
absl::Status Store::ReadSchemaVersion() {
  absl::StatusOr<Statement> q =
      db_->Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
  if (!q.ok()) return q.status();
  absl::StatusOr<bool> row = q->Step();
  if (!row.ok()) return row.status();
  schema_version_ = static_cast<int>(q->Int(0));
  return absl::OkStatus();
}

absl::Status Store::Migrate() {
  absl::Status s = db_->Execute(
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
    s = InTransaction([&]() -> absl::Status {
      absl::Status e = db_->Execute(m.sql);
      if (!e.ok()) return e;
      if (m.version == kLowerQuartileMigration) {
        if (e = BackfillLowerQuartiles(); !e.ok()) return e;
      }
      absl::StatusOr<Statement> ins = db_->Prepare(absl::StrCat(
          "INSERT INTO schema_migrations (version, name, applied_at) "
          "VALUES (?, ?, ",
          kNow, ")"));
      if (!ins.ok()) return ins.status();
      return ins->Bind(1, int64_t{m.version}).Bind(2, m.name).Run();
    });
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("migration ", m.version, " (",
                                                 m.name, "): ", s.message()));
    }
    schema_version_ = m.version;
  }
  return absl::OkStatus();
}

// Migration 12 added the lower quartile; the points stored before it get
// theirs from their samples, in the migration's transaction, so the engine's
// steadiness rule (which needs it) keeps applying to old campaigns.
absl::Status Store::BackfillLowerQuartiles() {
  absl::StatusOr<Statement> q = db_->Prepare(
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
        db_->Prepare("UPDATE measurements SET lower_quartile_s = ? WHERE id = ?");
    if (!up.ok()) return up.status();
    if (absl::Status s = up->Bind(1, lower).Bind(2, id).Run(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Store::InTransaction(const std::function<absl::Status()>& body) {
  if (read_only_) {
    // Said plainly rather than SQLite's "attempt to write a readonly
    // database"; callers keep what they wanted stored (colltune flush keeps
    // the report in its spool).
    return absl::FailedPreconditionError(absl::StrCat(
        "database ", path_, " is read-only (it could not be written when "
        "colltuned started): nothing can be stored, reads are served; make it "
        "writable and restart colltuned"));
  }
  if (in_transaction_) {
    return absl::FailedPreconditionError("transactions do not nest");
  }
  absl::StatusOr<Transaction> tx = Transaction::Begin(db_.get());
  if (!tx.ok()) return tx.status();
  in_transaction_ = true;
  absl::Status s = body();
  in_transaction_ = false;
  if (!s.ok()) return s;  // ~Transaction rolls back
  return tx->Commit();
}

absl::Status Store::RequireTransaction() const {
  return in_transaction_ ? absl::OkStatus()
                         : absl::FailedPreconditionError(
                               "write outside a transaction");
}

absl::StatusOr<int64_t> Store::UpsertProfile(const ProfileKey& k) {
  if (absl::Status s = RequireTransaction(); !s.ok()) return s;
  absl::StatusOr<Statement> st = db_->Prepare(absl::StrCat(
      "INSERT INTO profiles (cluster, library, library_version, comm_size, "
      "nodes, ppn, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ",
      kNow, ", ", kNow,
      ") ON CONFLICT (cluster, library, library_version, comm_size, nodes, "
      "ppn) DO UPDATE SET updated_at = excluded.updated_at RETURNING id"));
  if (!st.ok()) return st.status();
  st->Bind(1, k.cluster)
      .Bind(2, k.library)
      .Bind(3, k.library_version)
      .Bind(4, int64_t{k.comm_size})
      .Bind(5, int64_t{k.nodes})
      .Bind(6, int64_t{k.ppn});
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  return st->Int(0);
}

absl::StatusOr<int64_t> Store::UpsertCampaign(int64_t profile_id,
                                              std::string_view label,
                                              std::string_view host) {
  if (absl::Status s = RequireTransaction(); !s.ok()) return s;
  absl::StatusOr<Statement> st = db_->Prepare(absl::StrCat(
      "INSERT INTO campaigns (profile_id, label, host, created_at) "
      "VALUES (?, ?, ?, ",
      kNow,
      ") ON CONFLICT (profile_id, label) DO UPDATE SET host = host "
      "RETURNING id"));
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id).Bind(2, label).Bind(3, host);
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  return st->Int(0);
}

absl::Status Store::PutMeasurement(int64_t campaign_id, int launch,
                                   const MeasurementInput& m) {
  if (absl::Status s = RequireTransaction(); !s.ok()) return s;
  const Summary sum = Summarize(m.samples);
  const std::string blob = EncodeSamples(m.samples);
  absl::StatusOr<Statement> st = db_->Prepare(
      "INSERT OR REPLACE INTO measurements (campaign_id, launch, collective, "
      "algorithm, msg_bytes, nrep, median_s, mean_s, min_s, max_s, stddev_s, "
      "samples, problem, upper_quartile_s, lower_quartile_s, regime) VALUES (?, "
      "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!st.ok()) return st.status();
  const absl::Status inserted = st->Bind(1, campaign_id)
      .Bind(2, int64_t{launch})
      .Bind(3, Name(m.collective))
      .Bind(4, Name(m.algorithm))
      .Bind(5, m.msg_bytes)
      .Bind(6, sum.n)
      .Bind(7, sum.median)
      .Bind(8, sum.mean)
      .Bind(9, sum.min)
      .Bind(10, sum.max)
      .Bind(11, sum.stddev)
      .BindBlob(12, blob.data(), blob.size())
      .Bind(13, m.problem)
      .Bind(14, UpperQuartile(m.samples))
      .Bind(15, LowerQuartile(m.samples))
      .Bind(16, std::string(NameOf(m.regime)))
      .Run();
  if (!inserted.ok()) return inserted;
  return UpdateWithinLaunchTests(campaign_id, launch, m);
}

// The within-launch comparison (migration 10): whichever of default and an
// algorithm arrives second completes the pair, so upload order and uploads
// split across requests do not matter. Both sides are compared as stored
// (float32), so a value never depends on which side came first.
absl::Status Store::UpdateWithinLaunchTests(int64_t campaign_id, int launch,
                                            const MeasurementInput& m) {
  absl::StatusOr<Statement> others = db_->Prepare(absl::StrCat(
      "SELECT algorithm, samples FROM measurements WHERE campaign_id = ? AND "
      "launch = ? AND collective = ? AND msg_bytes = ? AND problem = ? AND "
      "regime = ? AND algorithm ",
      m.algorithm == Algorithm::kDefault ? "!=" : "=", " ?"));
  if (!others.ok()) return others.status();
  const std::string regime(NameOf(m.regime));
  others->Bind(1, campaign_id)
      .Bind(2, int64_t{launch})
      .Bind(3, Name(m.collective))
      .Bind(4, m.msg_bytes)
      .Bind(5, m.problem)
      .Bind(6, regime)
      .Bind(7, Name(Algorithm::kDefault));
  const std::vector<double> mine = DecodeSamples(EncodeSamples(m.samples));
  std::vector<std::pair<std::string, double>> updates;  // algorithm, p
  absl::Status each = others->EachRow([&](const Statement& row) {
    const std::vector<double> theirs = DecodeSamples(row.Blob(1));
    if (m.algorithm == Algorithm::kDefault) {
      updates.push_back({row.Text(0), MannWhitneyLess(theirs, mine)});
    } else {
      updates.push_back({std::string(Name(m.algorithm)), MannWhitneyLess(mine, theirs)});
    }
  });
  if (!each.ok()) return each;
  for (const auto& [algorithm, p] : updates) {
    absl::StatusOr<Statement> st = db_->Prepare(
        "UPDATE measurements SET p_faster_than_default = ? WHERE campaign_id = "
        "? AND launch = ? AND collective = ? AND msg_bytes = ? AND problem = ? "
        "AND regime = ? AND algorithm = ?");
    if (!st.ok()) return st.status();
    if (absl::Status s = st->Bind(1, p)
                             .Bind(2, campaign_id)
                             .Bind(3, int64_t{launch})
                             .Bind(4, Name(m.collective))
                             .Bind(5, m.msg_bytes)
                             .Bind(6, m.problem)
                             .Bind(7, regime)
                             .Bind(8, algorithm)
                             .Run();
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status Store::PutCampaignLaunch(int64_t campaign_id, int launch,
                                      int64_t uid, int64_t gid, RegimeSet regimes) {
  if (absl::Status s = RequireTransaction(); !s.ok()) return s;
  absl::StatusOr<Statement> st = db_->Prepare(absl::StrCat(
      "INSERT INTO campaign_launches (campaign_id, launch, uid, gid, "
      "uploaded_at, regimes) VALUES (?, ?, ?, ?, ",
      kNow,
      ", ?5) ON CONFLICT (campaign_id, launch) DO UPDATE SET uid = excluded.uid, "
      "gid = excluded.gid, uploaded_at = excluded.uploaded_at, "
      "regimes = excluded.regimes"));
  if (!st.ok()) return st.status();
  st->Bind(1, campaign_id).Bind(2, int64_t{launch}).Bind(5, FormatRegimeSet(regimes));
  if (uid >= 0) {
    st->Bind(3, uid);
    if (gid >= 0) {
      st->Bind(4, gid);
    } else {
      st->BindNull(4);
    }
  } else {
    st->BindNull(3).BindNull(4);
  }
  return st->Run();
}

absl::StatusOr<int64_t> Store::AddTable(int64_t profile_id,
                                        const std::vector<StoredRule>& rules,
                                        std::string_view reason,
                                        std::string_view changes) {
  if (absl::Status s = RequireTransaction(); !s.ok()) return s;
  absl::StatusOr<Statement> st = db_->Prepare(absl::StrCat(
      "INSERT INTO decision_tables (profile_id, version, created_at, reason, "
      "changes) SELECT ?, COALESCE(MAX(version), 0) + 1, ",
      kNow,
      ", ?, ? FROM decision_tables WHERE profile_id = ? "
      "RETURNING id, version"));
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id).Bind(2, reason).Bind(3, changes).Bind(4, profile_id);
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  const int64_t table_id = st->Int(0);
  const int64_t version = st->Int(1);
  for (const StoredRule& s : rules) {
    const Rule& r = s.rule;
    absl::StatusOr<Statement> ins = db_->Prepare(
        "INSERT INTO decision_rules (table_id, collective, min_bytes, "
        "max_bytes, algorithm, speedup, p_value, launches_default, "
        "launches_algorithm, campaigns, pinned, source, regimes) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!ins.ok()) return ins.status();
    ins->Bind(1, table_id)
            .Bind(2, Name(r.collective))
            .Bind(3, static_cast<int64_t>(r.min_bytes))
            .Bind(4, r.max_bytes == kNoUpperBound
                         ? int64_t{-1}
                         : static_cast<int64_t>(r.max_bytes))
            .Bind(5, Name(r.algorithm))
            .Bind(6, r.speedup)
            .Bind(7, s.p_value)
            .Bind(8, int64_t{s.launches_default})
            .Bind(9, int64_t{s.launches_algorithm})
            .Bind(10, s.campaigns)
            .Bind(11, int64_t{s.pinned ? 1 : 0})
            .Bind(12, s.source);
    if (s.regimes.empty()) {
      ins->BindNull(13);
    } else {
      ins->Bind(13, FormatRegimeEvidence(s.regimes));
    }
    if (absl::Status e = ins->Run(); !e.ok()) return e;
  }
  return version;
}

absl::Status Store::RefreshEvidence(int64_t profile_id, int64_t version,
                                    const std::vector<StoredRule>& rules) {
  if (absl::Status s = RequireTransaction(); !s.ok()) return s;
  for (const StoredRule& s : rules) {
    absl::StatusOr<Statement> up = db_->Prepare(
        "UPDATE decision_rules SET speedup = ?1, p_value = ?2, "
        "launches_default = ?3, launches_algorithm = ?4, campaigns = ?5, "
        "pinned = ?6, source = ?7, regimes = ?12 WHERE table_id = (SELECT id "
        "FROM decision_tables WHERE profile_id = ?8 AND version = ?9) AND "
        "collective = ?10 AND min_bytes = ?11");
    if (!up.ok()) return up.status();
    up->Bind(1, s.rule.speedup)
                         .Bind(2, s.p_value)
                         .Bind(3, int64_t{s.launches_default})
                         .Bind(4, int64_t{s.launches_algorithm})
                         .Bind(5, s.campaigns)
                         .Bind(6, int64_t{s.pinned ? 1 : 0})
                         .Bind(7, s.source)
                         .Bind(8, profile_id)
                         .Bind(9, version)
                         .Bind(10, Name(s.rule.collective))
                         .Bind(11, static_cast<int64_t>(s.rule.min_bytes));
    if (s.regimes.empty()) {
      up->BindNull(12);
    } else {
      up->Bind(12, FormatRegimeEvidence(s.regimes));
    }
    absl::Status e = up->Run();
    if (!e.ok()) return e;
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Store::AddPin(int64_t profile_id, const PinRow& pin) {
  if (absl::Status s = RequireTransaction(); !s.ok()) return s;
  absl::StatusOr<Statement> st = db_->Prepare(absl::StrCat(
      "INSERT INTO pins (profile_id, collective, min_bytes, max_bytes, "
      "algorithm, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ",
      kNow, ") RETURNING id"));
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id)
      .Bind(2, Name(pin.collective))
      .Bind(3, pin.min_bytes)
      .Bind(4, pin.max_bytes)
      .Bind(5, Name(pin.algorithm))
      .Bind(6, pin.note);
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  return st->Int(0);
}

absl::StatusOr<bool> Store::DeletePin(int64_t profile_id, int64_t pin_id) {
  if (absl::Status s = RequireTransaction(); !s.ok()) return s;
  absl::StatusOr<Statement> st = db_->Prepare(
      "DELETE FROM pins WHERE profile_id = ? AND id = ? RETURNING id");
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id).Bind(2, pin_id);
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  return *row;
}

absl::StatusOr<std::pair<int64_t, bool>> Store::PutJobReport(
    const JobReportInput& r) {
  if (absl::Status s = RequireTransaction(); !s.ok()) return s;
  bool replaced = false;
  {
    absl::StatusOr<Statement> old = db_->Prepare(
        "SELECT id FROM job_reports WHERE profile_id = ? AND job_id = ? AND "
        "run_id = ?");
    if (!old.ok()) return old.status();
    old->Bind(1, r.profile_id).Bind(2, r.job_id).Bind(3, r.run_id);
    absl::StatusOr<bool> row = old->Step();
    if (!row.ok()) return row.status();
    if (*row) {
      const int64_t id = old->Int(0);
      for (const char* sql : {"DELETE FROM job_timings WHERE report_id = ?",
                              "DELETE FROM job_counted_calls WHERE report_id = ?",
                              "DELETE FROM job_reports WHERE id = ?"}) {
        absl::StatusOr<Statement> del = db_->Prepare(sql);
        if (!del.ok()) return del.status();
        if (absl::Status e = del->Bind(1, id).Run(); !e.ok()) return e;
      }
      replaced = true;
    }
  }
  absl::StatusOr<Statement> st = db_->Prepare(absl::StrCat(
      "INSERT INTO job_reports (profile_id, job_id, table_version, "
      "received_at, source, final, ranks, run_id, uid, gid, slurm_job_id) "
      "VALUES (?, ?, ?, ",
      kNow, ", ?, ?, ?, ?, ?, ?, ?) RETURNING id"));
  if (!st.ok()) return st.status();
  st->Bind(1, r.profile_id)
      .Bind(2, r.job_id)
      .Bind(3, r.table_version)
      .Bind(4, r.source)
      .Bind(5, int64_t{r.final ? 1 : 0})
      .Bind(6, int64_t{r.ranks})
      .Bind(7, r.run_id);
  if (r.uid >= 0) {
    st->Bind(8, r.uid).Bind(9, r.gid);
  } else {
    st->BindNull(8).BindNull(9);
  }
  if (!r.slurm_job_id.empty()) {
    st->Bind(10, r.slurm_job_id);
  } else {
    st->BindNull(10);
  }
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  const int64_t report_id = st->Int(0);
  for (const JobTimingInput& t : r.timings) {
    absl::StatusOr<Statement> ins = db_->Prepare(
        "INSERT INTO job_timings (report_id, collective, algorithm, "
        "min_bytes, max_bytes, calls, timed_calls, total_seconds, profile_id, "
        "comm_size, explored_calls, first_bin, bins, median_s) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!ins.ok()) return ins.status();
    std::string blob(t.bins.size() * 8, '\0');
    for (size_t i = 0; i < t.bins.size(); ++i) {
      for (int byte = 0; byte < 8; ++byte) {
        blob[i * 8 + byte] = static_cast<char>((t.bins[i] >> (8 * byte)) & 0xff);
      }
    }
    ins->Bind(1, report_id)
        .Bind(2, Name(t.collective))
        .Bind(3, Name(t.algorithm))
        .Bind(4, t.min_bytes)
        .Bind(5, t.max_bytes)
        .Bind(6, t.calls)
        .Bind(7, t.timed_calls)
        .Bind(8, t.total_seconds);
    if (t.profile_id > 0) {
      ins->Bind(9, t.profile_id);
    } else {
      ins->BindNull(9);
    }
    absl::Status s = ins->Bind(10, int64_t{t.comm_size})
                         .Bind(11, t.explored_calls)
                         .Bind(12, int64_t{t.first_bin})
                         .BindBlob(13, blob.data(), blob.size())
                         .Bind(14, t.median_seconds)
                         .Run();
    if (!s.ok()) return s;
  }
  for (const CountedCallsRow& c : r.counted) {
    absl::StatusOr<Statement> ins = db_->Prepare(
        "INSERT INTO job_counted_calls (report_id, kind, collective, min_bytes, "
        "max_bytes, calls) VALUES (?, ?, ?, ?, ?, ?)");
    if (!ins.ok()) return ins.status();
    absl::Status s = ins->Bind(1, report_id)
                         .Bind(2, c.kind)
                         .Bind(3, c.collective)
                         .Bind(4, c.min_bytes)
                         .Bind(5, c.max_bytes)
                         .Bind(6, c.calls)
                         .Run();
    if (!s.ok()) return s;
  }
  return std::make_pair(report_id, replaced);
}

absl::StatusOr<std::vector<OnlinePoint>> Store::OnlinePoints(int64_t profile_id,
                                                            int window,
                                                            int64_t min_timed) {
  // Every report retunes its profile, so this must not cost in proportion
  // to the reports kept: the profile's cells come from job_cells, and each
  // cell's newest `window` timings by report from job_timings_by_cell
  // (migration 8).
  absl::StatusOr<Statement> st = db_->Prepare(
      "SELECT t.collective, t.algorithm, t.min_bytes, t.max_bytes, t.report_id, "
      "  t.median_s, t.timed_calls, t.explored_calls, r.job_id, COALESCE(r.uid, -1) "
      "FROM job_cells c "
      "JOIN job_timings t ON t.rowid IN ("
      "  SELECT rowid FROM job_timings WHERE profile_id = ?1 AND"
      "    collective = c.collective AND min_bytes = c.min_bytes AND"
      "    algorithm = c.algorithm AND timed_calls >= ?3"
      "  ORDER BY report_id DESC LIMIT ?2) "
      "JOIN job_reports r ON r.id = t.report_id "
      "WHERE c.profile_id = ?1 "
      "ORDER BY t.collective, t.min_bytes, t.algorithm, t.report_id");
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id).Bind(2, int64_t{window}).Bind(3, min_timed);
  std::vector<OnlinePoint> out;
  absl::Status each = st->EachRow([&](const Statement& row) {
    auto c = ParseCollective(row.Text(0));
    auto a = c ? ParseAlgorithm(row.Text(1), *c) : std::nullopt;
    if (!c || !a) return;  // written by a newer colltuned
    OnlinePoint p;
    p.collective = *c;
    p.algorithm = *a;
    p.min_bytes = row.Int(2);
    p.max_bytes = row.Int(3);
    p.report_id = row.Int(4);
    p.median_seconds = row.Real(5);
    p.timed_calls = row.Int(6);
    p.explored_calls = row.Int(7);
    p.job_id = row.Text(8);
    p.uid = row.Int(9);
    out.push_back(p);
  });
  if (!each.ok()) return each;
  return out;
}

absl::StatusOr<std::vector<Profile>> Store::Profiles(std::string_view cluster,
                                                     std::string_view library) {
  absl::StatusOr<Statement> st = db_->Prepare(absl::StrCat(
      "SELECT ", kProfileColumns,
      " FROM profiles WHERE (?1 = '' OR cluster = ?1) AND "
      "(?2 = '' OR library = ?2) ORDER BY cluster, library, library_version, "
      "comm_size, nodes, ppn"));
  if (!st.ok()) return st.status();
  st->Bind(1, cluster).Bind(2, library);
  std::vector<Profile> out;
  absl::Status each = st->EachRow([&](const Statement& row) {
    out.push_back(ProfileFromRow(*st));
  });
  if (!each.ok()) return each;
  return out;
}

absl::StatusOr<std::optional<Profile>> Store::GetProfile(int64_t id) {
  absl::StatusOr<Statement> st = db_->Prepare(
      absl::StrCat("SELECT ", kProfileColumns, " FROM profiles WHERE id = ?"));
  if (!st.ok()) return st.status();
  st->Bind(1, id);
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<Profile>();
  return std::optional<Profile>(ProfileFromRow(*st));
}

absl::StatusOr<ProfileCounts> Store::Counts(int64_t profile_id) {
  absl::StatusOr<ProfileCounts> c = CampaignCounts(profile_id);
  if (!c.ok()) return c.status();
  absl::StatusOr<ProfileCounts> r = ReportCounts(profile_id);
  if (!r.ok()) return r.status();
  c->job_reports = r->job_reports;
  c->last_report_at = r->last_report_at;
  return c;
}

absl::StatusOr<ProfileCounts> Store::CampaignCounts(int64_t profile_id) {
  absl::StatusOr<Statement> st = db_->Prepare(
      "SELECT "
      " (SELECT COUNT(*) FROM campaigns WHERE profile_id = ?1),"
      " (SELECT COUNT(*) FROM (SELECT DISTINCT m.campaign_id, m.launch"
      "    FROM measurements m JOIN campaigns c ON c.id = m.campaign_id"
      "    WHERE c.profile_id = ?1)),"
      " (SELECT COUNT(*) FROM measurements m JOIN campaigns c"
      "    ON c.id = m.campaign_id WHERE c.profile_id = ?1 AND m.regime = 'sync')");
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id);
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  ProfileCounts c;
  c.campaigns = static_cast<int>(st->Int(0));
  c.launches = static_cast<int>(st->Int(1));
  c.measurements = static_cast<int>(st->Int(2));
  return c;
}

absl::StatusOr<ProfileCounts> Store::ReportCounts(int64_t profile_id) {
  absl::StatusOr<Statement> st = db_->Prepare(
      "SELECT (SELECT COUNT(*) FROM job_reports WHERE profile_id = ?1),"
      " (SELECT COALESCE(MAX(received_at), '') FROM job_reports"
      "    WHERE profile_id = ?1)");
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id);
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  ProfileCounts c;
  c.job_reports = static_cast<int>(st->Int(0));
  c.last_report_at = st->Text(1);
  return c;
}

absl::StatusOr<std::vector<LaunchPoint>> Store::LaunchPoints(
    int64_t profile_id) {
  absl::StatusOr<Statement> st = db_->Prepare(
      "SELECT m.campaign_id, m.launch, m.collective, m.algorithm, "
      "m.msg_bytes, m.nrep, m.median_s, m.mean_s, m.min_s, m.max_s, "
      "m.stddev_s, m.problem, m.p_faster_than_default, m.upper_quartile_s, "
      "m.lower_quartile_s, m.regime, COALESCE(l.regimes, 'sync') "
      "FROM measurements m "
      "JOIN campaigns c ON c.id = m.campaign_id "
      "LEFT JOIN campaign_launches l ON l.campaign_id = m.campaign_id AND "
      "l.launch = m.launch WHERE c.profile_id = ? ORDER BY m.collective, m.problem, "
      "m.msg_bytes, m.algorithm, m.regime, m.campaign_id, m.launch");
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id);
  std::vector<LaunchPoint> out;
  for (;;) {
    absl::StatusOr<bool> row = st->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    LaunchPoint p;
    p.campaign_id = st->Int(0);
    p.launch = static_cast<int>(st->Int(1));
    absl::Status names = ReadNames(*st, 2, 3, &p.collective, &p.algorithm);
    if (!names.ok()) return names;
    p.msg_bytes = st->Int(4);
    p.nrep = st->Int(5);
    p.median = st->Real(6);
    p.mean = st->Real(7);
    p.min = st->Real(8);
    p.max = st->Real(9);
    p.stddev = st->Real(10);
    p.problem = st->Text(11);
    p.p_faster_than_default = st->IsNull(12) ? -1 : st->Real(12);
    p.upper_quartile = st->IsNull(13) ? 0 : st->Real(13);
    p.lower_quartile = st->IsNull(14) ? 0 : st->Real(14);
    const std::optional<Regime> regime = ParseRegime(st->Text(15));
    if (!regime) {
      return absl::DataLossError(absl::StrCat("stored regime '", st->Text(15),
                                              "' is not one colltune knows"));
    }
    p.regime = *regime;
    if (!ParseRegimeSet(st->Text(16), &p.launch_regimes)) p.launch_regimes = kSyncOnly;
    out.push_back(p);
  }
  return out;
}

std::vector<Rule> TableVersion::Rules() const {
  std::vector<Rule> out;
  out.reserve(rules.size());
  for (const StoredRule& r : rules) out.push_back(r.rule);
  return out;
}

int TableVersion::RulesNotDefault() const {
  int n = 0;
  for (const StoredRule& r : rules) {
    if (r.rule.algorithm != Algorithm::kDefault) ++n;
  }
  return n;
}

absl::StatusOr<std::optional<TableVersion>> Store::LoadTable(int64_t table_id) {
  absl::StatusOr<Statement> st = db_->Prepare(
      "SELECT version, created_at, reason, changes FROM decision_tables "
      "WHERE id = ?");
  if (!st.ok()) return st.status();
  st->Bind(1, table_id);
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<TableVersion>();
  TableVersion t;
  t.version = st->Int(0);
  t.created_at = st->Text(1);
  t.reason = st->Text(2);
  t.changes = st->Text(3);
  absl::StatusOr<Statement> rules = db_->Prepare(
      "SELECT collective, min_bytes, max_bytes, algorithm, speedup, p_value, "
      "launches_default, launches_algorithm, campaigns, pinned, source, regimes "
      "FROM decision_rules WHERE table_id = ?");
  if (!rules.ok()) return rules.status();
  rules->Bind(1, table_id);
  for (;;) {
    absl::StatusOr<bool> r = rules->Step();
    if (!r.ok()) return r.status();
    if (!*r) break;
    StoredRule s;
    absl::Status names = ReadNames(*rules, 0, 3, &s.rule.collective, &s.rule.algorithm);
    if (!names.ok()) return names;
    s.rule.min_bytes = static_cast<uint64_t>(rules->Int(1));
    const int64_t max = rules->Int(2);
    s.rule.max_bytes = max < 0 ? kNoUpperBound : static_cast<uint64_t>(max);
    s.rule.speedup = rules->Real(4);
    s.p_value = rules->Real(5);
    s.launches_default = static_cast<int>(rules->Int(6));
    s.launches_algorithm = static_cast<int>(rules->Int(7));
    s.campaigns = rules->Text(8);
    s.pinned = rules->Int(9) != 0;
    s.source = rules->Text(10);
    // Unreadable evidence (written by hand) is shown as none, not fatal.
    if (!rules->IsNull(11) && !ParseRegimeEvidence(rules->Text(11), &s.regimes)) {
      s.regimes.clear();
    }
    t.rules.push_back(std::move(s));
  }
  std::sort(t.rules.begin(), t.rules.end(),
            [](const StoredRule& a, const StoredRule& b) {
              return IndexOf(a.rule.collective) != IndexOf(b.rule.collective)
                         ? IndexOf(a.rule.collective) < IndexOf(b.rule.collective)
                         : a.rule.min_bytes < b.rule.min_bytes;
            });
  return std::optional<TableVersion>(std::move(t));
}

absl::StatusOr<std::optional<TableVersion>> Store::CurrentTable(
    int64_t profile_id) {
  return TableAt(profile_id, 0);
}

absl::StatusOr<std::optional<TableVersion>> Store::TableAt(int64_t profile_id,
                                                           int64_t version) {
  absl::StatusOr<Statement> st = db_->Prepare(
      version > 0 ? "SELECT id FROM decision_tables WHERE profile_id = ?1 AND "
                    "version = ?2"
                  : "SELECT id FROM decision_tables WHERE profile_id = ?1 "
                    "ORDER BY version DESC LIMIT 1");
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id);
  if (version > 0) st->Bind(2, version);
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<TableVersion>();
  const int64_t table_id = st->Int(0);
  return LoadTable(table_id);
}

absl::StatusOr<std::vector<TableVersionInfo>> Store::TableHistory(
    int64_t profile_id) {
  absl::StatusOr<Statement> st = db_->Prepare(
      "SELECT t.version, t.created_at, t.reason, t.changes, "
      "(SELECT COUNT(*) FROM decision_rules r WHERE r.table_id = t.id AND "
      "r.algorithm != 'default') FROM decision_tables t WHERE t.profile_id = ? "
      "ORDER BY t.version DESC");
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id);
  std::vector<TableVersionInfo> out;
  absl::Status each = st->EachRow([&](const Statement& row) {
    TableVersionInfo v;
    v.version = row.Int(0);
    v.created_at = row.Text(1);
    v.reason = row.Text(2);
    v.changes = row.Text(3);
    v.rules_not_default = static_cast<int>(row.Int(4));
    out.push_back(std::move(v));
  });
  if (!each.ok()) return each;
  return out;
}

absl::StatusOr<std::vector<PinRow>> Store::Pins(int64_t profile_id) {
  absl::StatusOr<Statement> st = db_->Prepare(
      "SELECT id, collective, min_bytes, max_bytes, algorithm, note, "
      "created_at FROM pins WHERE profile_id = ? ORDER BY id");
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id);
  std::vector<PinRow> out;
  for (;;) {
    absl::StatusOr<bool> row = st->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    PinRow p;
    p.id = st->Int(0);
    absl::Status names = ReadNames(*st, 1, 4, &p.collective, &p.algorithm);
    if (!names.ok()) return names;
    p.min_bytes = st->Int(2);
    p.max_bytes = st->Int(3);
    p.note = st->Text(5);
    p.created_at = st->Text(6);
    out.push_back(std::move(p));
  }
  return out;
}

absl::StatusOr<std::pair<std::vector<JobReportRow>, int>> Store::JobReports(
    int64_t profile_id, int limit) {
  absl::StatusOr<Statement> count =
      db_->Prepare("SELECT COUNT(*) FROM job_reports WHERE profile_id = ?");
  if (!count.ok()) return count.status();
  count->Bind(1, profile_id);
  absl::StatusOr<bool> counted = count->Step();
  if (!counted.ok()) return counted.status();
  const int total = static_cast<int>(count->Int(0));

  absl::StatusOr<Statement> st = db_->Prepare(
      "SELECT id, job_id, run_id, received_at, source, table_version, final, "
      "ranks, COALESCE(uid, -1), COALESCE(gid, -1), COALESCE(slurm_job_id, '') "
      "FROM job_reports WHERE profile_id = ? "
      "ORDER BY received_at DESC, id DESC LIMIT ?");
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id).Bind(2, int64_t{limit});
  std::vector<JobReportRow> reports;
  std::map<int64_t, size_t> index;  // report id -> position
  absl::Status each = st->EachRow([&](const Statement& row) {
    JobReportRow r;
    r.id = row.Int(0);
    r.job_id = row.Text(1);
    r.run_id = row.Text(2);
    r.received_at = row.Text(3);
    r.source = row.Text(4);
    r.table_version = row.Int(5);
    r.final = row.Int(6) != 0;
    r.ranks = static_cast<int>(row.Int(7));
    r.uid = row.Int(8);
    r.gid = row.Int(9);
    r.slurm_job_id = row.Text(10);
    index[r.id] = reports.size();
    reports.push_back(std::move(r));
  });
  if (!each.ok()) return each;
  if (reports.empty()) return std::make_pair(std::move(reports), total);

  // One query for all the reports' timings: the ids form a contiguous
  // prefix of the same ordering, so the subquery repeats it.
  absl::StatusOr<Statement> t = db_->Prepare(
      "SELECT report_id, collective, algorithm, min_bytes, max_bytes, calls, "
      "timed_calls, explored_calls, median_s FROM job_timings WHERE report_id "
      "IN (SELECT id FROM job_reports WHERE profile_id = ? "
      "ORDER BY received_at DESC, id DESC LIMIT ?) AND profile_id IS NOT NULL "
      "ORDER BY report_id, collective, min_bytes, algorithm");
  if (!t.ok()) return t.status();
  t->Bind(1, profile_id).Bind(2, int64_t{limit});
  for (;;) {
    absl::StatusOr<bool> row = t->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    auto it = index.find(t->Int(0));
    if (it == index.end()) continue;
    JobReportRow::Timing timing;
    absl::Status names = ReadNames(*t, 1, 2, &timing.collective, &timing.algorithm);
    if (!names.ok()) return names;
    timing.min_bytes = t->Int(3);
    timing.max_bytes = t->Int(4);
    timing.calls = t->Int(5);
    timing.timed_calls = t->Int(6);
    timing.explored_calls = t->Int(7);
    timing.median_seconds = t->Real(8);
    reports[it->second].timings.push_back(timing);
  }

  absl::StatusOr<Statement> c = db_->Prepare(
      "SELECT report_id, kind, collective, min_bytes, max_bytes, calls "
      "FROM job_counted_calls WHERE report_id IN (SELECT id FROM job_reports "
      "WHERE profile_id = ? ORDER BY received_at DESC, id DESC LIMIT ?) "
      "ORDER BY report_id, collective, min_bytes");
  if (!c.ok()) return c.status();
  c->Bind(1, profile_id).Bind(2, int64_t{limit});
  absl::Status counted_rows = c->EachRow([&](const Statement& row) {
    auto it = index.find(row.Int(0));
    if (it == index.end()) return;
    CountedCallsRow counted;
    counted.kind = row.Text(1);
    counted.collective = row.Text(2);
    counted.min_bytes = row.Int(3);
    counted.max_bytes = row.Int(4);
    counted.calls = row.Int(5);
    reports[it->second].counted.push_back(std::move(counted));
  });
  if (!counted_rows.ok()) return counted_rows;
  return std::make_pair(std::move(reports), total);
}

absl::StatusOr<std::optional<Profile>> Store::FindProfile(const ProfileKey& k) {
  absl::StatusOr<Statement> st = db_->Prepare(absl::StrCat(
      "SELECT ", kProfileColumns,
      " FROM profiles WHERE cluster = ? AND library = ? AND "
      "library_version = ? AND comm_size = ? AND nodes = ? AND ppn = ?"));
  if (!st.ok()) return st.status();
  st->Bind(1, k.cluster)
      .Bind(2, k.library)
      .Bind(3, k.library_version)
      .Bind(4, int64_t{k.comm_size})
      .Bind(5, int64_t{k.nodes})
      .Bind(6, int64_t{k.ppn});
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<Profile>();
  return std::optional<Profile>(ProfileFromRow(*st));
}

absl::StatusOr<std::vector<StoredPointRow>> Store::CampaignPoints(
    int64_t profile_id, std::string_view label) {
  absl::StatusOr<Statement> st = db_->Prepare(
      "SELECT m.launch, m.collective, m.algorithm, m.msg_bytes, m.nrep, "
      "m.problem, m.regime FROM measurements m JOIN campaigns c ON c.id = "
      "m.campaign_id WHERE c.profile_id = ? AND c.label = ? ORDER BY m.launch, "
      "m.collective, m.problem, m.msg_bytes, m.algorithm, m.regime");
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id).Bind(2, label);
  std::vector<StoredPointRow> out;
  for (;;) {
    absl::StatusOr<bool> row = st->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    StoredPointRow p;
    p.launch = static_cast<int>(st->Int(0));
    absl::Status names = ReadNames(*st, 1, 2, &p.collective, &p.algorithm);
    if (!names.ok()) return names;
    p.msg_bytes = st->Int(3);
    p.samples = st->Int(4);
    p.problem = st->Text(5);
    p.regime = ParseRegime(st->Text(6)).value_or(Regime::kSync);
    out.push_back(p);
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> Store::Campaigns(
    int64_t profile_id) {
  absl::StatusOr<Statement> st = db_->Prepare(
      "SELECT id, label FROM campaigns WHERE profile_id = ? ORDER BY id");
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id);
  std::vector<std::pair<int64_t, std::string>> out;
  absl::Status each = st->EachRow([&](const Statement& row) {
    out.emplace_back(row.Int(0), row.Text(1));
  });
  if (!each.ok()) return each;
  return out;
}

absl::StatusOr<std::vector<CampaignLaunchRow>> Store::CampaignLaunches(
    int64_t profile_id) {
  absl::StatusOr<Statement> st = db_->Prepare(
      "SELECT c.id, c.label, c.host, l.launch, "
      "(SELECT COUNT(*) FROM measurements m WHERE m.campaign_id = c.id AND "
      "m.launch = l.launch AND m.regime = 'sync'), COALESCE(l.uid, -1), "
      "COALESCE(l.gid, -1), l.uploaded_at, l.regimes FROM campaign_launches l "
      "JOIN campaigns c ON c.id = "
      "l.campaign_id WHERE c.profile_id = ? ORDER BY c.id, l.launch");
  if (!st.ok()) return st.status();
  st->Bind(1, profile_id);
  std::vector<CampaignLaunchRow> out;
  absl::Status each = st->EachRow([&](const Statement& row) {
    CampaignLaunchRow l;
    l.campaign_id = row.Int(0);
    l.label = row.Text(1);
    l.host = row.Text(2);
    l.launch = static_cast<int>(row.Int(3));
    l.points = row.Int(4);
    l.uid = row.Int(5);
    l.gid = row.Int(6);
    l.uploaded_at = row.Text(7);
    if (!ParseRegimeSet(row.Text(8), &l.regimes)) l.regimes = kSyncOnly;
    out.push_back(std::move(l));
  });
  if (!each.ok()) return each;
  return out;
}

absl::StatusOr<std::vector<double>> Store::Samples(int64_t campaign_id,
                                                   int launch, Collective c,
                                                   Algorithm a,
                                                   int64_t msg_bytes,
                                                   std::string_view problem,
                                                   Regime regime) {
  absl::StatusOr<Statement> st = db_->Prepare(
      "SELECT samples FROM measurements WHERE campaign_id = ? AND launch = ? "
      "AND collective = ? AND algorithm = ? AND msg_bytes = ? AND problem = ? "
      "AND regime = ?");
  if (!st.ok()) return st.status();
  st->Bind(1, campaign_id)
      .Bind(2, int64_t{launch})
      .Bind(3, Name(c))
      .Bind(4, Name(a))
      .Bind(5, msg_bytes)
      .Bind(6, problem)
      .Bind(7, std::string(NameOf(regime)));
  absl::StatusOr<bool> row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::NotFoundError("no such measurement");
  return DecodeSamples(st->Blob(0));
}

}  // namespace colltune::db
