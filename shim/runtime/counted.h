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

// Zeroes every counter (MPI_Init, before counting starts).
inline void Reset() {
  for (auto& c : calls) c.store(0, std::memory_order_relaxed);
}

// The counters, cell id * kNumBuckets + bucket.
inline void Read(uint64_t* out) {
  for (int i = 0; i < kCells; ++i) out[i] = calls[i].load(std::memory_order_relaxed);
}

}  // namespace colltune::shim::counted

#endif  // COLLTUNE_SHIM_RUNTIME_COUNTED_H_
