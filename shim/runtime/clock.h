// The clock of online sampling: the CPU's time-stamp counter where it is
// invariant (constant rate, running in every power state, as cpuid reports),
// converted to nanoseconds with a rate measured against CLOCK_MONOTONIC at
// MPI_Init; CLOCK_MONOTONIC itself elsewhere. Reading the counter costs
// about a third of clock_gettime's vDSO call, and a sampled call reads the
// clock twice.
#ifndef COLLTUNE_SHIM_RUNTIME_CLOCK_H_
#define COLLTUNE_SHIM_RUNTIME_CLOCK_H_

#include <time.h>

#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace colltune::shim::clock {

struct Rate {
  bool tsc = false;          // ticks are TSC cycles, else nanoseconds
  double ns_per_tick = 1.0;
};

// Measures the rate (about 200 us of spinning); called once per process at
// MPI_Init, before any Now().
void Calibrate();
const Rate& CurrentRate();

inline uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u +
         static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t Now() {
#if defined(__x86_64__)
  if (CurrentRate().tsc) return __rdtsc();
#endif
  return MonotonicNs();
}

// Nanoseconds between two Now() readings (0 if the clock went backwards, as
// counters of different cores may).
inline uint64_t ElapsedNs(uint64_t from, uint64_t to) {
  if (to <= from) return 0;
  const Rate& r = CurrentRate();
  return r.tsc ? static_cast<uint64_t>(static_cast<double>(to - from) * r.ns_per_tick)
               : to - from;
}

}  // namespace colltune::shim::clock

#endif  // COLLTUNE_SHIM_RUNTIME_CLOCK_H_
