#include "db/sqlite.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace colltune::db {
namespace {

absl::Status Error(sqlite3* db, const std::string& what) {
  return absl::InternalError(
      absl::StrCat("sqlite: ", what, ": ", sqlite3_errmsg(db)));
}

}  // namespace

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::Bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}

Statement& Statement::Bind(int index, std::string_view text) {
  sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()),
                    SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindBlob(int index, const void* data, size_t size) {
  sqlite3_bind_blob64(stmt_, index, data, size, SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Error(db_, sqlite3_sql(stmt_));
}

absl::Status Statement::Run() {
  absl::StatusOr<bool> row = Step();
  if (!row.ok()) return row.status();
  return absl::OkStatus();
}

int64_t Statement::Int(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

double Statement::Real(int column) const {
  return sqlite3_column_double(stmt_, column);
}

std::string Statement::Text(int column) const {
  const unsigned char* p = sqlite3_column_text(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return p ? std::string(reinterpret_cast<const char*>(p), n) : std::string();
}

std::string Statement::Blob(int column) const {
  const void* p = sqlite3_column_blob(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return p ? std::string(static_cast<const char*>(p), n) : std::string();
}

absl::StatusOr<std::unique_ptr<Database>> Database::Open(
    const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
      nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return absl::UnavailableError(
        absl::StrCat("cannot open database ", path, ": ", msg));
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Database>(new Database(db));
}

absl::StatusOr<std::unique_ptr<Database>> Database::OpenImmutable(
    const std::string& path) {
  // A URI (file:...?immutable=1): the characters URIs give a meaning are
  // escaped so that any file name works.
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      static const char kHex[] = "0123456789ABCDEF";
      uri += '%';
      uri += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
      uri += kHex[static_cast<unsigned char>(c) & 0xf];
    } else {
      uri += c;
    }
  }
  uri += "?immutable=1";
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      uri.c_str(), &db,
      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return absl::UnavailableError(
        absl::StrCat("cannot open database ", path, " read-only: ", msg));
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Database>(new Database(db));
}

Database::~Database() { sqlite3_close(db_); }

absl::Status Database::Execute(std::string_view sql) {
  std::string s(sql);
  char* err = nullptr;
  if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    absl::Status status = absl::InternalError(
        absl::StrCat("sqlite: ", err ? err : sqlite3_errmsg(db_)));
    sqlite3_free(err);
    return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt,
                         nullptr) != SQLITE_OK) {
    return Error(db_, std::string(sql));
  }
  return Statement(db_, stmt);
}

int64_t Database::LastInsertId() const { return sqlite3_last_insert_rowid(db_); }

absl::StatusOr<Transaction> Transaction::Begin(Database* db) {
  absl::Status s = db->Execute("BEGIN IMMEDIATE");
  if (!s.ok()) return s;
  return Transaction(db);
}

Transaction::Transaction(Transaction&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)) {}

Transaction::~Transaction() {
  if (db_ != nullptr) db_->Execute("ROLLBACK").IgnoreError();
}

absl::Status Transaction::Commit() {
  absl::Status s = db_->Execute("COMMIT");
  if (s.ok()) db_ = nullptr;
  return s;
}

}  // namespace colltune::db
