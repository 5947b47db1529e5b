#include "bench/table_choice.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "client/client.h"
#include "proto/context.h"
#include "shim/coll/datatype_class.h"
#include "shim/runtime/cache.h"

namespace colltune::bench {

bool LoadTable(const Options& o, const Bench& b, Table* table) {
  std::string text, error;
  if (b.rank == 0) {
    if (!o.table.empty()) {
      Table t;
      if (!shim::ReadFileLimited(o.table, kMaxTableTextBytes, &text, &error) ||
          !ParseTable(text, &t, &error)) {
        fprintf(stderr, "colltune-bench: %s: %s\n", o.table.c_str(),
                error.c_str());
        text.clear();
      }
    } else if (!o.server.empty()) {
      auto stub = client::Connect(o.server);
      v1::GetTableRequest request;
      JobContext context = b.context;
      context.cluster = o.cluster;
      *request.mutable_context() = ContextToProto(context);
      v1::GetTableResponse response;
      auto rpc = client::WithDeadline(std::chrono::milliseconds(o.timeout_ms));
      grpc::Status s = stub->GetTable(rpc.get(), request, &response);
      std::vector<std::string> warnings;
      absl::StatusOr<Table> t =
          s.ok() ? client::TableFromProto(response.table(), &warnings)
                 : absl::StatusOr<Table>(client::FromGrpc(s, o.server));
      if (t.ok()) {
        text = FormatTable(*t);
      } else {
        fprintf(stderr, "colltune-bench: %s\n", std::string(t.status().message()).c_str());
      }
    } else {
      fprintf(stderr, "colltune-bench: --evaluate needs --server or --table\n");
    }
  }
  int64_t n = static_cast<int64_t>(text.size());
  PMPI_Bcast(&n, 1, MPI_INT64_T, 0, b.comm);
  if (n == 0) return false;
  text.resize(n);
  PMPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, b.comm);
  return ParseTable(text, table, &error);
}

TableChoice::TableChoice(const Table& table, int comm_size) : dispatch_(table) {
  dispatch_.SlicesFor(static_cast<uint32_t>(comm_size), &slices_, &layouts_);
}

Algorithm TableChoice::For(const Workload& w, Regime r) const {
  const Collective c = w.collective();
  const uint64_t key =
      InfoOf(c).key == SizeKey::kNone ? 0 : static_cast<uint64_t>(w.bytes());
  const shim::Slice& slice = slices_[IndexOf(c)];
  Algorithm plain = Algorithm::kDefault;
  if (const uint32_t i = slice.Find(key); i < slice.count) {
    const shim::Range& range = slice.ranges[i];
    plain = !range.switches            ? range.algorithm
            : r == Regime::kLoop       ? range.loop
            : r == Regime::kImbalance  ? range.imbalance
                                       : range.algorithm;
  }
  Algorithm tuned = dispatch_.forced(c).value_or(plain);
  if (!w.layout_problem().empty() && tuned == Algorithm::kDefault && !dispatch_.forced(c)) {
    // The workload runs the forms as the grid's rules do (bench/
    // workload.cc): on bytes for data mixing basic types.
    const shim::DatatypeClass k = shim::ClassOf(w.derived());
    bool shared = false;
    tuned = layouts_[IndexOf(c)].Choose(k.Key(), k.Mixed(), key, &shared);
  }
  return w.Eligible(tuned) ? tuned : Algorithm::kDefault;
}

}  // namespace colltune::bench
