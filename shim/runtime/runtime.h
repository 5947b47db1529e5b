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
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "common/catalog.h"
#include "shim/coll/algorithm.h"
#include "shim/coll/datatype_class.h"
#include "shim/coll/env.h"
#include "shim/native/native.h"
#include "shim/runtime/clock.h"
#include "shim/runtime/context.h"
#include "shim/runtime/dispatch_table.h"
#include "shim/runtime/observer.h"
#include "shim/runtime/regime_switch.h"
#include "shim/runtime/report.h"

namespace colltune::shim {

struct CommState {
  CollEnv env;
  bool intra = true;  // mock-ups are defined for intra-communicators only
  const Section* section = nullptr;  // the table section applied, if any
  std::array<Slice, kNumCollectives> slices{};
  std::array<LayoutSlice, kNumCollectives> layouts{};
  // Calls per algorithm that ran a mock-up, and calls whose chosen mock-up
  // could not run them (the default ran). Only the communicator's own calls
  // touch these, and MPI forbids concurrent collectives on one communicator.
  std::array<uint64_t, kNumAlgorithms> runs{};
  std::array<uint64_t, kNumAlgorithms> ineligible{};
  // Online sampling and exploration (null when not observing), and which
  // table section the communicator's statistics belong to.
  std::unique_ptr<CommObserver> observer;
  // Where the section has ranges that switch by regime: their state. Its
  // Done() follows every call Choose answered.
  std::unique_ptr<RegimeSwitch> regimes;
  // Per collective under Runtime::kForced: the shadow its calls go straight
  // to and the forced algorithm's counter in `runs`, set once a call made
  // the shadow (runs null until then).
  struct Direct {
    MPI_Comm shadow{};
    uint64_t* runs = nullptr;
  };
  std::array<Direct, kNumCollectives> direct{};
  int section_index = kNoSection;
  MPI_Comm p2p = MPI_COMM_NULL;  // env.p2p points here
  NodeLayout nodes;              // env.nodes points here
  NativeComms native_comms;      // env.native_comms points here
  CommState* prev = nullptr;  // Runtime's list of live states
  CommState* next = nullptr;
};

class Runtime {
 public:
  // The runtime of this process; null before MPI_Init, after MPI_Finalize,
  // and under COLLTUNE_DISABLE.
  static Runtime* Current() { return current_.load(std::memory_order_acquire); }

  // Before PMPI_Init/PMPI_Init_thread, before the library allocates
  // anything: the heap's state (common/heap.h, COLLTUNE_HEAP). Returns what
  // was done, for Start's log; "" under COLLTUNE_DISABLE (a pure
  // pass-through changes nothing).
  static std::string PrepareHeap();
  // After PMPI_Init/PMPI_Init_thread succeeded. Collective over
  // MPI_COMM_WORLD; never fails the job. `heap`: what was done to the
  // heap's state before the library started (common/heap.h), for the log.
  static void Start(int thread_level, const std::string& heap);
  // Before PMPI_Finalize (collective); returns rank 0's report for Deliver.
  static FinalDelivery Stop();
  // After PMPI_Finalize: spools and sends the report (rank 0; no MPI).
  static void Deliver(const FinalDelivery& delivery);

  // What the wrappers do with a call of `c`, decided at MPI_Init and read
  // with one load before anything else (no runtime pointer, no branch on
  // settings): the whole pass-through and sampling-only paths.
  enum Mode : uint8_t {
    kPass = 0,      // call the library (also before Init and after Finalize)
    kSample = 1,    // sampling only: a per-thread countdown picks the calls
    kExplore = 2,   // every call counts on its communicator
    kDispatch = 3,  // the table may change this call
    // Forced (COLLTUNE_FORCE) to a native algorithm with nothing to check
    // per call, and no exploration: once a call on a communicator made its
    // shadow, the wrapper runs the next ones there itself (CommState::direct),
    // as Dispatch would, without the runtime.
    kForced = 4,
  };
  static Mode ModeOf(Collective c) {
    return static_cast<Mode>(modes_[IndexOf(c)].load(std::memory_order_relaxed));
  }

  bool Active(Collective c) const { return table_.Active(c); }
  // Sampling (and exploration) is on: every call ticks its communicator.
  bool Observing() const { return observe_.enabled(); }
  // Exploration runs: events must be rank-consistent, so every call counts
  // on its communicator. Without it sampling needs no agreement between
  // ranks, and a per-thread countdown picks the calls to time.
  bool Exploring() const { return observe_.explore_every > 0; }
  // Sampling without exploration: true when this thread's call is to be
  // timed; the caller then calls Resample() off the fast path.
  static bool SampleNow() { return --tls_countdown_ == 0; }
  void Resample() { tls_countdown_ = NextThreadGap(); }
  bool Forced(Collective c) const { return table_.forced(c).has_value(); }
  Algorithm Repair(Collective c) const { return table_.repair(c); }
  // The job sits on one node, or holds one process per node (the same on
  // every rank): its hierarchical mock-ups are flat ones plus communicators
  // to build, so exploration leaves them out.
  bool FlatJob() const { return flat_job_; }

  // The state of `comm`, created on first use; null if it cannot be had
  // (MPI_COMM_NULL, attribute errors): the caller then passes through.
  // Each thread remembers the last communicator it looked up, so repeated
  // calls on one communicator skip MPI's attribute lookup (which costs ~170
  // instructions in Open MPI and grows with the number of keys in MPICH,
  // seed 002); freeing any communicator's state forgets all of these.
  __attribute__((always_inline)) CommState* StateOf(MPI_Comm comm) {
    // A state is freed only with its communicator (or at MPI_Finalize), and
    // a collective on a communicator being freed is erroneous: a state
    // remembered in the current epoch is alive.
    if (CommState* s = CachedState(comm)) return s;
    return StateOfSlow(comm);
  }

  // The observer of `comm` if this thread looked it up last (the wrappers'
  // fastest path), else null.
  static CommObserver* CachedObserver(MPI_Comm comm) {
    const LastComm& last = tls_last_;
    if (last.comm == comm && last.epoch == epoch_.load(std::memory_order_acquire)) {
      return last.observer;
    }
    return nullptr;
  }

  // The state of `comm` if this thread looked it up last, else null.
  __attribute__((always_inline)) static CommState* CachedState(MPI_Comm comm) {
    const LastComm& last = tls_last_;
    if (last.comm == comm && last.epoch == epoch_.load(std::memory_order_acquire)) {
      return last.state;
    }
    return nullptr;
  }

  // Under kForced, after a call of `c` on `s`: where the call went straight
  // to a shadow, its later calls may too (CommState::direct).
  void NoteDirect(CommState& s, Collective c) const;

  // The algorithm for a call; `key_bytes` is the call's rank-invariant size.
  template <class KeyFn>
  Algorithm Choose(const CommState& s, Collective c, KeyFn key_bytes) const {
    if (!s.intra) return Algorithm::kDefault;
    if (const auto& f = table_.forced(c)) return *f;
    const Slice& slice = s.slices[IndexOf(c)];
    if (slice.count == 0) return Algorithm::kDefault;
    const int64_t bytes = key_bytes();
    if (bytes < 0) return Algorithm::kDefault;
    const uint32_t i = slice.Find(static_cast<uint64_t>(bytes));
    if (i == slice.count) return Algorithm::kDefault;
    const Range& r = slice.ranges[i];
    if (__builtin_expect(r.switches, 0) && s.regimes) return s.regimes->Choose(c, i, r);
    return r.algorithm;
  }

  // Under COLLTUNE_VERBOSE: remembers the layout class of a sampled call's
  // derived datatype, for the finalize line (seed 003's layouts a job uses).
  void NoteDatatype(Collective c, MPI_Datatype type);

  // Where Choose gave default: what the table's layout rules give a call
  // whose data is `type` (default for contiguous data and when none apply).
  // Layout rules only name the collective's datatype forms, which keep the
  // signature, so a rank may run one whatever the others do (*shared false);
  // data whose signature mixes basic types finds the whole-class `struct`
  // rules first, as every rank of the call does (*shared true: the form may
  // move bytes; LayoutSlice::Choose).
  template <class KeyFn>
  Algorithm ChooseLayout(const CommState& s, Collective c, MPI_Datatype type,
                         KeyFn key_bytes, bool* shared) const {
    *shared = false;
    const LayoutSlice& slice = s.layouts[IndexOf(c)];
    if (slice.count == 0 || !s.intra || table_.forced(c)) return Algorithm::kDefault;
    const DatatypeClass k = ClassOf(type);
    if (!k.Mixed() && !IsRuleLayout(k.Key())) return Algorithm::kDefault;
    const int64_t bytes = key_bytes();
    if (bytes < 0) return Algorithm::kDefault;
    return slice.Choose(k.Key(), k.Mixed(), static_cast<uint64_t>(bytes), shared);
  }

  // Counts what a dispatched call did and says so under COLLTUNE_VERBOSE.
  // Inline for the common case: the chosen algorithm ran, not for the first
  // time on this communicator.
  __attribute__((always_inline)) void Record(CommState& s, Collective c, Algorithm a,
                                             Outcome outcome, Algorithm ran) {
    if (outcome == Outcome::kRan) {
      if (s.runs[IndexOf(a)]++ == 0) NoteFirstRun(s, c, a);
    } else if (outcome == Outcome::kIneligible) {
      RecordIneligible(s, c, a, ran);
    }
  }

  // After an event: rank 0 writes a snapshot report when one is due (never
  // under MPI_THREAD_MULTIPLE). Checked on one event in 64.
  void MaybeSnapshot() {
    if (snapshot_due_ns_ != 0 && (++snapshot_checks_ & 63) == 0) {
      const uint64_t now = clock::MonotonicNs();
      if (now >= snapshot_due_ns_) Snapshot(now);
    }
  }

 private:
  Runtime(DispatchTable table, std::unique_ptr<NativeAlgorithms> natives,
          uint64_t mem_budget, MPI_Comm world, int keyval);
  ~Runtime();

  void Snapshot(uint64_t now_ns);
  void NoteFirstRun(const CommState& s, Collective c, Algorithm a);
  void RecordIneligible(CommState& s, Collective c, Algorithm a, Algorithm ran);

  CommState* StateOfSlow(MPI_Comm comm);
  CommState* Create(MPI_Comm comm);

  // The calling thread's last looked-up communicator. Initial-exec TLS: one
  // load off the thread pointer, no __tls_get_addr call.
  // Zero-initialized (a constant), so no TLS wrapper guards the access; the
  // null state never matches.
  struct LastComm {
    MPI_Comm comm;
    CommState* state;
    uint64_t epoch;
    CommObserver* observer;  // state->observer
  };
  inline static thread_local LastComm tls_last_
      __attribute__((tls_model("initial-exec"))) = {};
  inline static thread_local uint32_t tls_countdown_
      __attribute__((tls_model("initial-exec"))) = 1;
  inline static thread_local uint64_t tls_rng_
      __attribute__((tls_model("initial-exec"))) = 0x2545f4914f6cdd1dULL;
  uint32_t NextThreadGap();
  CommState* Lookup(MPI_Comm comm);
  void Forget(CommState* s);  // folds counters into totals_, unlinks
  static int DeleteAttribute(MPI_Comm comm, int keyval, void* value,
                             void* extra);

  static std::atomic<Runtime*> current_;
  // Non-zero only while current_ is set: written after it is published and
  // cleared before it is withdrawn. A collective racing MPI_Init or
  // MPI_Finalize is erroneous, so relaxed loads suffice.
  static std::array<std::atomic<uint8_t>, kNumCollectives> modes_;
  void PublishModes() const;
  // Under MPI_THREAD_MULTIPLE (Open MPI): MPI_COMM_WORLD's shadows for the
  // native algorithms its section and the forced choices name, made inside
  // MPI_Init where no other thread can call MPI (native.h). Collective.
  void MakeStartShadows(const Table& table);
  static void ClearModes();
  // Bumped whenever a CommState is freed (and at start and stop):
  // thread-local remembered states older than it are not trusted.
  static std::atomic<uint64_t> epoch_;

  const DispatchTable table_;
  // The library's own algorithms; null unless the table names some.
  std::unique_ptr<NativeAlgorithms> natives_;
  const uint64_t mem_budget_;
  MPI_Comm world_;  // private duplicate of MPI_COMM_WORLD
  int world_rank_ = 0;
  int keyval_;
  ScratchPool scratch_;

  ObserveSettings observe_;
  ReportPlan plan_;       // rank 0's
  JobContext context_;    // nodes and ppn valid on rank 0
  bool flat_job_ = false;  // FlatJob(), broadcast from rank 0
  uint64_t snapshot_due_ns_ = 0;  // rank 0: next snapshot; 0 none
  uint64_t snapshot_checks_ = 0;
  uint64_t snapshot_interval_ns_ = 0;
  PendingCall snapshot_call_;  // the last snapshot report in flight

  std::mutex mu_;  // guards the list and the totals
  Totals totals_;  // statistics of freed communicators
  CommState* live_ = nullptr;
  std::array<uint64_t, kNumAlgorithms> total_runs_{};
  std::array<uint64_t, kNumAlgorithms> total_ineligible_{};
  std::array<std::atomic<bool>, kNumAlgorithms> noted_ineligible_{};
  std::set<std::string> datatypes_seen_;  // "bcast tiled/8B"; guarded by mu_
};

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_RUNTIME_H_
