// What jobs measure of themselves: online sampling and exploration.
//
// Promises: every choice of a call to time or to explore depends only on a
// per-communicator call counter, the rank-invariant size key and settings
// rank 0 broadcast, so every rank makes it on the same call (clocks and local
// state only feed the statistics); a call that is neither costs one
// increment and one compare; an exploration's first call is not timed. The
// scheme (events, bursts, the default as baseline): docs/architecture.md,
// "The shim".
#ifndef COLLTUNE_SHIM_RUNTIME_OBSERVER_H_
#define COLLTUNE_SHIM_RUNTIME_OBSERVER_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "common/catalog.h"
#include "common/histogram.h"

namespace colltune::shim {

// Settings rank 0 broadcast at MPI_Init (identical on every rank).
inline constexpr uint32_t kBurst = 5;  // calls per exploration, 1 untimed
inline constexpr uint32_t kBurstPatience = 8 * kBurst;  // calls a burst may span

struct ObserveSettings {
  uint32_t mean_gap = 0;        // calls per event on average; 0: no observing
  uint32_t explore_every = 0;   // events of a bucket per burst; 0: none
  uint64_t explore_min_calls = 1000;  // calls a bucket needs before exploring
  bool enabled() const { return mean_gap > 0; }
};

// Timed calls of one (collective, algorithm, bucket).
struct CellStats {
  uint64_t calls = 0;     // estimated: events stand for mean_gap calls each
  uint64_t timed = 0;
  uint64_t explored = 0;  // timed calls that ran the algorithm to explore
  uint64_t sum_ns = 0;
  std::array<uint32_t, histogram::kNumBins> bins{};

  void Add(const CellStats& o);
};

// Which cell: packed (collective, algorithm, bucket).
inline uint32_t CellKey(Collective c, Algorithm a, int bucket) {
  return (static_cast<uint32_t>(IndexOf(c)) << 16) |
         (static_cast<uint32_t>(IndexOf(a)) << 8) | static_cast<uint32_t>(bucket);
}

// A process's statistics, per (communicator size, table section, cell):
// what a report is made of. Section kNoSection: the calls had none.
inline constexpr int kNoSection = 0xff;
inline uint64_t TotalsKey(int comm_size, int section, uint32_t cell) {
  return (static_cast<uint64_t>(comm_size) << 40) |
         (static_cast<uint64_t>(section & 0xff) << 32) | cell;
}
using Totals = std::map<uint64_t, CellStats>;

// Per-communicator counters and statistics.
class CommObserver {
 public:
  explicit CommObserver(const ObserveSettings& s);

  // The hot path: true when this call of collective `c` is an event.
  bool Tick(Collective c) {
    Counter& k = counters_[IndexOf(c)];
    return ++k.calls == k.next_event;
  }

  struct EventPlan {
    bool explore = false;
    bool time = true;      // false: a burst's warm-up call
    uint64_t ordinal = 0;  // which burst of the bucket this is: 1, 2, ...
  };
  // Called on an event with the call's rank-invariant size bucket: schedules
  // the next event and says whether this one explores.
  EventPlan Plan(Collective c, int bucket);

  // Records a timed call (event) that ran `a`.
  void Record(Collective c, Algorithm a, int bucket, uint64_t ns, bool explored);

  // Cells with data, keyed by CellKey.
  const std::map<uint32_t, std::unique_ptr<CellStats>>& cells() const { return cells_; }
  uint64_t dropped() const { return dropped_; }

 private:
  struct Counter {
    uint64_t calls = 0;
    uint64_t next_event = 0;
    uint64_t rng = 0;
    // A burst under way: its bucket, ordinal, calls left, and when the
    // regular event it displaced is due.
    int burst_bucket = -1;
    uint64_t burst_ordinal = 0;
    uint32_t burst_left = 0;
    uint32_t burst_patience = 0;
    uint64_t resume_gap = 0;
    std::array<uint32_t, histogram::kNumBuckets> bucket_events{};
  };
  uint64_t NextGap(Counter& k);

  const ObserveSettings settings_;
  // A bucket explores from its min_events_-th event on (explore_min_calls);
  // the bursts due before it, skipped_bursts_, do not count towards its
  // full-rate ones (explore_schedule.h).
  const uint64_t min_events_;
  const uint64_t skipped_bursts_;
  std::array<Counter, kNumCollectives> counters_{};
  // The cell each collective recorded into last: repeated events of one
  // (algorithm, bucket) skip the map.
  std::array<uint32_t, kNumCollectives> last_key_{};
  std::array<CellStats*, kNumCollectives> last_cell_{};
  // Allocated on a cell's first event only, never between events.
  std::map<uint32_t, std::unique_ptr<CellStats>> cells_;
  uint64_t dropped_ = 0;  // events not recorded (out of memory)
};

// The algorithms of `c` other than `chosen`, in catalogue order (default
// first): the candidates of exploration.
const std::vector<Algorithm>& Alternatives(Collective c, Algorithm chosen);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_OBSERVER_H_
