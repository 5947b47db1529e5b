// The one database the store's parts (db/store.h) share, and whether a
// write may happen now.
#ifndef COLLTUNE_DB_CONNECTION_H_
#define COLLTUNE_DB_CONNECTION_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "db/sqlite.h"

namespace colltune::db {

struct Connection {
  std::unique_ptr<Database> db;
  std::string path;
  bool read_only = false;       // the file could not be written at Open()
  bool in_transaction = false;  // inside Store::InTransaction

  // OK inside Store::InTransaction, else FAILED_PRECONDITION: every write
  // checks it, so a request is stored whole or not at all.
  absl::Status RequireTransaction() const {
    return in_transaction ? absl::OkStatus()
                          : absl::FailedPreconditionError("write outside a transaction");
  }
};

}  // namespace colltune::db

#endif  // COLLTUNE_DB_CONNECTION_H_
