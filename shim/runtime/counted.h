// Call counters of the collectives the shim passes through without tuning
// them: non-blocking, persistent and neighbourhood collectives
// (common/counted.h). One relaxed atomic counter per (collective, message-size
// bucket) in a fixed array of the process: a counted call costs one byte
// load, the size key (a multiplication by a predefined type's size from a
// table, MPI_Type_size for derived types) and one increment; no allocation,
// no lock, no system call. While the shim is not running (before MPI_Init,
// after MPI_Finalize, COLLTUNE_DISABLE=1) or the job does not report, the
// byte is 0 and nothing is counted.
//
// The counters are process-wide, not per communicator: the calls of every
// communicator, inter-communicators included, add up. At MPI_Finalize the
// ranks' counters are summed (report.h).
//
// Starts of persistent collective requests (MPI_Start, MPI_Startall) count
// under the collective and size bucket of the request's initialization: the
// initialization, while counting, records the request handle it returned in
// a small table (`requests` below), MPI_Request_free takes it out, and a
// start looks its request up there. A request completed by MPI_Wait/Test is
// inactive, not freed: it stays in the table and counts again when started
// again. Point-to-point persistent requests are never in the table: their
// starts cost a lookup that finds nothing (nothing at all while no
// persistent collective request exists).
#ifndef COLLTUNE_SHIM_RUNTIME_COUNTED_H_
#define COLLTUNE_SHIM_RUNTIME_COUNTED_H_

#include <array>
#include <atomic>
#include <cstdint>

#include "common/counted.h"
#include "common/histogram.h"

namespace colltune::shim::counted {

inline constexpr int kCells = kNumCounted * histogram::kNumBuckets;

// Set while the runtime runs and reports (Runtime::PublishModes).
inline std::atomic<uint8_t> on{0};
inline std::array<std::atomic<uint64_t>, kCells> calls{};

inline bool On() { return on.load(std::memory_order_relaxed) != 0; }

// Counts one call of collective `id` whose size key is `bytes` (negative:
// invalid arguments, counted in bucket 0; the library reports the error).
inline void Add(int id, int64_t bytes) {
  const int bucket = histogram::BucketOf(bytes < 0 ? 0 : static_cast<uint64_t>(bytes));
  calls[id * histogram::kNumBuckets + bucket].fetch_add(1, std::memory_order_relaxed);
}

// The cell of id `id` and size key `bytes`.
inline int CellOf(int id, int64_t bytes) {
  return id * histogram::kNumBuckets +
         histogram::BucketOf(bytes < 0 ? 0 : static_cast<uint64_t>(bytes));
}

// The cell that starts of a request made by persistent id `init` with size
// key `bytes` count in, -1 where `init` is not persistent.
inline int StartCellOf(int init, int64_t bytes) {
  const int start = StartId(init);
  return start < 0 ? -1 : CellOf(start, bytes);
}

// Counts one call in a cell (id * kNumBuckets + bucket).
inline void AddCell(int cell) { calls[cell].fetch_add(1, std::memory_order_relaxed); }

// The persistent collective requests alive in the process, by handle (a
// request handle as an integer: Open MPI's pointer, MPICH's int), each with
// the cell its starts count in. Open addressing over a fixed array, at most
// kProbes slots per lookup: lookups take no lock (MPI_THREAD_MULTIPLE jobs
// start requests from several threads); insertions and removals, made by
// initializations and MPI_Request_free, take a spin lock among themselves.
// A request that finds no free slot among its kProbes is not recorded: its
// initialization counts, its starts do not (`untracked` says how many).
namespace requests {

inline constexpr int kSlots = 4096;  // a power of two
inline constexpr int kProbes = 32;
inline constexpr uintptr_t kEmpty = 0;  // no request handle is 0 or 1
inline constexpr uintptr_t kRemoved = 1;

struct Slot {
  std::atomic<uintptr_t> key{kEmpty};
  std::atomic<int> cell{0};
};
inline std::array<Slot, kSlots> slots{};
inline std::atomic<int> live{0};        // requests in the table
inline std::atomic<uint64_t> untracked{0};
inline std::atomic<bool> writing{false};

inline uint32_t Home(uintptr_t key) {
  // Fibonacci hashing: Open MPI's pointers differ in their middle bits,
  // MPICH's handles in their low ones.
  return static_cast<uint32_t>((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> 52) &
         (kSlots - 1);
}

class WriteLock {
 public:
  WriteLock() {
    while (writing.exchange(true, std::memory_order_acquire)) {
    }
  }
  ~WriteLock() { writing.store(false, std::memory_order_release); }
};

// The cell of request `key`'s starts, or -1 when it is no persistent
// collective request the table knows.
inline int Find(uintptr_t key) {
  if (live.load(std::memory_order_relaxed) == 0) return -1;
  uint32_t i = Home(key);
  for (int n = 0; n < kProbes; ++n, i = (i + 1) & (kSlots - 1)) {
    const uintptr_t k = slots[i].key.load(std::memory_order_acquire);
    if (k == key) return slots[i].cell.load(std::memory_order_relaxed);
    if (k == kEmpty) return -1;
  }
  return -1;
}

// Records request `key` (just initialized) with the cell of its starts; an
// old entry of the same handle (a request freed where the shim did not see
// it) is replaced.
inline void Add(uintptr_t key, int cell) {
  if (key == kEmpty || key == kRemoved) return;
  WriteLock hold;
  uint32_t i = Home(key);
  int free_slot = -1;
  for (int n = 0; n < kProbes; ++n, i = (i + 1) & (kSlots - 1)) {
    const uintptr_t k = slots[i].key.load(std::memory_order_relaxed);
    if (k == key) {
      slots[i].cell.store(cell, std::memory_order_relaxed);
      return;
    }
    if (k == kRemoved && free_slot < 0) free_slot = static_cast<int>(i);
    if (k == kEmpty) {
      if (free_slot < 0) free_slot = static_cast<int>(i);
      break;
    }
  }
  if (free_slot < 0) {
    untracked.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  slots[free_slot].cell.store(cell, std::memory_order_relaxed);
  slots[free_slot].key.store(key, std::memory_order_release);
  live.fetch_add(1, std::memory_order_relaxed);
}

// Forgets request `key` (MPI_Request_free); nothing if it is not there.
inline void Remove(uintptr_t key) {
  if (live.load(std::memory_order_relaxed) == 0) return;
  WriteLock hold;
  uint32_t i = Home(key);
  for (int n = 0; n < kProbes; ++n, i = (i + 1) & (kSlots - 1)) {
    const uintptr_t k = slots[i].key.load(std::memory_order_relaxed);
    if (k == key) {
      slots[i].key.store(kRemoved, std::memory_order_release);
      live.fetch_sub(1, std::memory_order_relaxed);
      return;
    }
    if (k == kEmpty) return;
  }
}

inline void Clear() {
  WriteLock hold;
  for (Slot& s : slots) s.key.store(kEmpty, std::memory_order_relaxed);
  live.store(0, std::memory_order_relaxed);
  untracked.store(0, std::memory_order_relaxed);
}

}  // namespace requests

// Zeroes every counter and forgets every request (MPI_Init, before counting
// starts).
inline void Reset() {
  for (auto& c : calls) c.store(0, std::memory_order_relaxed);
  requests::Clear();
}

// The counters, cell id * kNumBuckets + bucket.
inline void Read(uint64_t* out) {
  for (int i = 0; i < kCells; ++i) out[i] = calls[i].load(std::memory_order_relaxed);
}

}  // namespace colltune::shim::counted

#endif  // COLLTUNE_SHIM_RUNTIME_COUNTED_H_
