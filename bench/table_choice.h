// The decision table a run checks (colltune evaluate, a campaign's held-out
// validation) and what it chooses for a workload, exactly as the shim
// chooses for the same call.
#ifndef COLLTUNE_BENCH_TABLE_CHOICE_H_
#define COLLTUNE_BENCH_TABLE_CHOICE_H_

#include <array>

#include "bench/options.h"
#include "bench/workload.h"
#include "common/catalog.h"
#include "common/regime.h"
#include "common/table.h"
#include "shim/runtime/dispatch_table.h"

namespace colltune::bench {

// The table of --table, else the daemon's for this job's context; read on
// rank 0 and broadcast, so every rank holds the same table. Collective.
// False (with a message on rank 0's stderr) where there is none.
bool LoadTable(const Options& o, const Bench& b, Table* table);

class TableChoice {
 public:
  TableChoice(const Table& table, int comm_size);
  // What the shim runs for w's call: forced, else the plain rules, else
  // (derived data, where they say default) its layout's rules; default
  // where the choice is not eligible for the call.
  // In regime r, a range's regime switch where it has one for r (the shim
  // runs it once its probes find the calls in r: shim/runtime/
  // regime_switch.h).
  Algorithm For(const Workload& w, Regime r = Regime::kSync) const;

 private:
  shim::DispatchTable dispatch_;
  std::array<shim::Slice, kNumCollectives> slices_;
  std::array<shim::LayoutSlice, kNumCollectives> layouts_;
};

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_TABLE_CHOICE_H_
