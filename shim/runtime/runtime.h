// The shim's state between MPI_Init and MPI_Finalize.
//
// Everything that decides an algorithm is fixed at MPI_Init from bytes that
// rank 0 broadcast, and never changes afterwards: the dispatch table and the
// scratch budget. Per-communicator state is created on a communicator's first
// intercepted call, cached as an MPI attribute and freed with the
// communicator. The pass-through path reads one pointer and one flag, or at
// most one attribute, a type size and a binary search: no allocation, no
// system call, no lock.
#ifndef COLLTUNE_SHIM_RUNTIME_RUNTIME_H_
#define COLLTUNE_SHIM_RUNTIME_RUNTIME_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

#include "common/catalog.h"
#include "shim/coll/algorithm.h"
#include "shim/coll/env.h"
#include "shim/runtime/dispatch_table.h"

namespace colltune::shim {

struct CommState {
  CollEnv env;
  bool intra = true;  // mock-ups are defined for intra-communicators only
  const Section* section = nullptr;  // the table section applied, if any
  std::array<Slice, kNumCollectives> slices{};
  // Calls per algorithm that ran a mock-up, and calls whose chosen mock-up
  // could not run them (the default ran). Only the communicator's own calls
  // touch these, and MPI forbids concurrent collectives on one communicator.
  // Until issue-5 sampling arrives, pass-through calls are not counted.
  std::array<uint64_t, kNumAlgorithms> runs{};
  std::array<uint64_t, kNumAlgorithms> ineligible{};
  CommState* prev = nullptr;  // Runtime's list of live states
  CommState* next = nullptr;
};

class Runtime {
 public:
  // The runtime of this process; null before MPI_Init, after MPI_Finalize,
  // and under COLLTUNE_DISABLE.
  static Runtime* Current() { return current_.load(std::memory_order_acquire); }

  // After PMPI_Init/PMPI_Init_thread succeeded. Collective over
  // MPI_COMM_WORLD; never fails the job.
  static void Start(int thread_level);
  // Before PMPI_Finalize.
  static void Stop();

  bool Active(Collective c) const { return table_.Active(c); }

  // The state of `comm`, created on first use; null if it cannot be had
  // (MPI_COMM_NULL, attribute errors): the caller then passes through.
  // Each thread remembers the last communicator it looked up, so repeated
  // calls on one communicator skip MPI's attribute lookup (which costs ~170
  // instructions in Open MPI and grows with the number of keys in MPICH,
  // seed 002); freeing any communicator's state forgets all of these.
  CommState* StateOf(MPI_Comm comm);

  // The algorithm for a call; `key_bytes` is the call's rank-invariant size.
  template <class KeyFn>
  Algorithm Choose(const CommState& s, Collective c, KeyFn key_bytes) const {
    if (!s.intra) return Algorithm::kDefault;
    if (const auto& f = table_.forced(c)) return *f;
    const Slice& slice = s.slices[IndexOf(c)];
    if (slice.count == 0) return Algorithm::kDefault;
    const int64_t bytes = key_bytes();
    if (bytes < 0) return Algorithm::kDefault;
    return slice.Lookup(static_cast<uint64_t>(bytes));
  }

  // Counts what a dispatched call did and says so under COLLTUNE_VERBOSE.
  void Record(CommState& s, Collective c, Algorithm a, Outcome outcome);

 private:
  Runtime(DispatchTable table, uint64_t mem_budget, MPI_Comm world, int keyval);
  ~Runtime();

  CommState* Create(MPI_Comm comm);
  CommState* Lookup(MPI_Comm comm);
  void Forget(CommState* s);  // folds counters into totals_, unlinks
  static int DeleteAttribute(MPI_Comm comm, int keyval, void* value,
                             void* extra);

  static std::atomic<Runtime*> current_;
  // Bumped whenever a CommState is freed (and at start and stop):
  // thread-local remembered states older than it are not trusted.
  static std::atomic<uint64_t> epoch_;

  const DispatchTable table_;
  const uint64_t mem_budget_;
  MPI_Comm world_;  // private duplicate of MPI_COMM_WORLD
  int world_rank_ = 0;
  int keyval_;
  ScratchPool scratch_;

  std::mutex mu_;  // guards the list and the totals
  CommState* live_ = nullptr;
  std::array<uint64_t, kNumAlgorithms> total_runs_{};
  std::array<uint64_t, kNumAlgorithms> total_ineligible_{};
  std::array<std::atomic<bool>, kNumAlgorithms> noted_ineligible_{};
};

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_RUNTIME_H_
