// Regime switching: which of a switching range's algorithms (common/table.h,
// Rule::loop and ::imbalance) a job's calls run, by the regime the shim
// finds the job calling the range in.
//
// Promises:
//  * Every rank picks the same algorithm on every call: the pick is a
//    function of the range's call counter on the communicator (the range is
//    found from the rank-invariant size key) and of probes, allreduces that
//    every rank joins on the same call.
//  * Until two probes in a row found the calls back to back or after uneven
//    work, and where they look synchronized (even, not back to back), the
//    range runs the rule's own algorithm: the one the campaign found not
//    slower than default in any regime. A regime changes only when two
//    probes in a row find the new one.
//  * A call outside a probe's window costs a counter increment and two
//    compares; the kWindow + 1 calls before a probe read the clock twice.
//  * A probe is one MPI_Allreduce of 2 kWindow + 4 doubles on the
//    communicator, spaced so that probes cost about 1 % of the range's own
//    time (at least kMinPeriod calls apart); a probe that finds another
//    regime than the calls run by is checked by one kMinPeriod calls later.
//
// How a probe reads the regime: over the kWindow calls before it, each rank
// times the gap from its previous exit of the range to its entry (its own
// work between the calls) and the call. Per call, the spread of the gaps over
// the ranks is how uneven their arrivals were; its median over the window
// above kUneven times the call's time, times the gaps, and kMinSpreadNs,
// reads as uneven work (imbalance).
// Otherwise gaps below kBackToBack times the call's time on every rank read
// as back to back (loop), unless most of them came right after an
// MPI_Barrier. Anything else is synchronized for this purpose:
// the rule's algorithm runs. Measured regimes and the thresholds' origin:
// docs/architecture.md, "Regime switching".
#ifndef COLLTUNE_SHIM_RUNTIME_REGIME_SWITCH_H_
#define COLLTUNE_SHIM_RUNTIME_REGIME_SWITCH_H_

#include <array>
#include <cstdint>
#include <vector>

#include "common/catalog.h"
#include "shim/mpi/mpi.h"
#include "shim/runtime/dispatch_table.h"

namespace colltune::shim {

class RegimeSwitch {
 public:
  static constexpr uint32_t kWindow = 8;
  static constexpr uint64_t kFirstProbe = 2 * kWindow;
  static constexpr uint64_t kMinPeriod = 32;
  static constexpr uint64_t kMaxPeriod = 1 << 16;
  static constexpr double kUneven = 0.10;
  // A spread below this is the clock's and the program's own loop noise
  // (a root's copy before its bcast), not uneven work: on 1 us calls a
  // tenth of the call is within it.
  static constexpr double kMinSpreadNs = 200;
  static constexpr double kBackToBack = 0.50;

  // What a probe found, by its statistics (every rank passes the same):
  // the median over the window of the gaps' spread over ranks and of their
  // maximum, and the call's time (the smallest per-rank median), in ns.
  enum class Found : uint8_t { kSynchronized, kLoop, kImbalance };
  static Found Classify(double spread, double gap, double call);

  // For a communicator whose section's switching ranges are those of
  // `slices`; probes run on `comm`, of which this process is rank `rank`
  // (rank 0 logs what probes find, under COLLTUNE_VERBOSE=2).
  RegimeSwitch(const std::array<Slice, kNumCollectives>& slices, MPI_Comm comm, int rank);

  // The algorithm this call of range `i` of collective `c` runs. On a
  // probe's call it first runs the probe (every rank does, on this call).
  Algorithm Choose(Collective c, uint32_t i, const Range& r) {
    State& st = states_[IndexOf(c)][i];
    const uint64_t k = ++st.calls;
    if (k == st.next_probe) Probe(&st, c, r);
    if (k + kWindow + 1 >= st.next_probe) Open(&st, k);
    switch (st.found) {
      case Found::kLoop: return r.loop;
      case Found::kImbalance: return r.imbalance;
      default: return r.algorithm;
    }
  }
  // After the call Choose answered: ends its timing, if it was timed.
  void Done() {
    if (pending_ != nullptr) Close();
  }
  // An MPI_Barrier on the communicator: calls that follow one start
  // synchronized, however short the gap (a benchmark's barrier, then the
  // call).
  void NoteBarrier() { ++barriers_; }

 private:
  struct State {
    uint64_t calls = 0;
    uint64_t next_probe = kFirstProbe;
    uint64_t last_exit = 0;  // clock::Now() at the previous timed call's end
    uint64_t last_probe_ns = 0;
    uint64_t barriers_at_exit = 0;  // barriers_ when the previous call ended
    uint32_t after_barrier = 0;     // window calls a barrier came before
    float gap[kWindow] = {};
    float call[kWindow] = {};
    Found found = Found::kSynchronized;  // what the calls run by
    Found seen = Found::kSynchronized;   // what the last probe found
  };
  void Open(State* st, uint64_t k);
  void Close();
  void Probe(State* st, Collective c, const Range& r);

  std::array<std::vector<State>, kNumCollectives> states_;
  MPI_Comm comm_;
  int rank_;
  uint64_t barriers_ = 0;
  State* pending_ = nullptr;
  int pending_slot_ = -1;  // the window slot of the pending call; -1: none
  uint64_t pending_t0_ = 0;
};

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_REGIME_SWITCH_H_
