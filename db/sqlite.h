// A thin RAII layer over the SQLite C API with errors as absl::Status.
// Only what the store needs: open, execute, prepared statements, and
// transactions that roll back unless committed.
#ifndef COLLTUNE_DB_SQLITE_H_
#define COLLTUNE_DB_SQLITE_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace colltune::db {

class Database;

class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Parameters are 1-based, as in SQLite.
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, double value);
  Statement& Bind(int index, std::string_view text);
  Statement& BindBlob(int index, const void* data, size_t size);
  Statement& BindNull(int index);
  // Bind by the value's kind: any integer, any floating point, text.
  template <class T>
  Statement& BindValue(int index, const T& value) {
    if constexpr (std::is_integral_v<T>) {
      return Bind(index, static_cast<int64_t>(value));
    } else if constexpr (std::is_floating_point_v<T>) {
      return Bind(index, static_cast<double>(value));
    } else {
      return Bind(index, std::string_view(value));
    }
  }

  // Advances to the next row: true if there is one, false when done.
  absl::StatusOr<bool> Step();
  // Calls fn(row) with this statement on each row in turn: the first error
  // of a step, or of fn where it returns absl::Status, is returned (no
  // further row is read), else OK after the last row.
  template <class Fn>
  absl::Status EachRow(Fn&& fn) {
    for (;;) {
      absl::StatusOr<bool> row = Step();
      if (!row.ok()) return row.status();
      if (!*row) return absl::OkStatus();
      if constexpr (std::is_same_v<std::invoke_result_t<Fn&, const Statement&>,
                                   absl::Status>) {
        if (absl::Status s = fn(static_cast<const Statement&>(*this)); !s.ok()) return s;
      } else {
        fn(static_cast<const Statement&>(*this));
      }
    }
  }
  // Runs a statement that returns no rows.
  absl::Status Run();

  int64_t Int(int column) const;
  double Real(int column) const;
  std::string Text(int column) const;
  std::string Blob(int column) const;
  bool IsNull(int column) const;

 private:
  friend class Database;
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

class Database {
 public:
  // Opens (creating if needed) the database file at `path`.
  static absl::StatusOr<std::unique_ptr<Database>> Open(const std::string& path);
  // Opens an existing file that cannot be written (a read-only file system)
  // as immutable: SQLite then needs no -shm/-wal next to it, which it could
  // not create there, and takes no locks. Only right when nothing can change
  // the file, which is what a read-only mount guarantees.
  static absl::StatusOr<std::unique_ptr<Database>> OpenImmutable(
      const std::string& path);
  ~Database();

  // Runs one or more statements that return no rows.
  absl::Status Execute(std::string_view sql);
  absl::StatusOr<Statement> Prepare(std::string_view sql);
  // Prepare, with `args` bound to ?1, ?2, ... in order (integers, doubles,
  // strings).
  template <class... Args>
  absl::StatusOr<Statement> Query(std::string_view sql, const Args&... args) {
    absl::StatusOr<Statement> st = Prepare(sql);
    if (!st.ok()) return st.status();
    int index = 0;
    (st->BindValue(++index, args), ...);
    return st;
  }
  // Query, stepped to its first row; nullopt when it has none.
  template <class... Args>
  absl::StatusOr<std::optional<Statement>> FirstRow(std::string_view sql,
                                                    const Args&... args) {
    absl::StatusOr<Statement> st = Query(sql, args...);
    if (!st.ok()) return st.status();
    absl::StatusOr<bool> row = st->Step();
    if (!row.ok()) return row.status();
    if (!*row) return std::optional<Statement>();
    return std::optional<Statement>(std::move(*st));
  }
  int64_t LastInsertId() const;
  // The primary result code of the last failed call (SQLITE_CORRUPT, ...).
  int LastErrorCode() const { return sqlite3_errcode(db_) & 0xff; }

 private:
  explicit Database(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless Commit()
// succeeded.
class Transaction {
 public:
  static absl::StatusOr<Transaction> Begin(Database* db);
  Transaction(Transaction&& other) noexcept;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  absl::Status Commit();

 private:
  explicit Transaction(Database* db) : db_(db) {}
  Database* db_;
};

}  // namespace colltune::db

#endif  // COLLTUNE_DB_SQLITE_H_
