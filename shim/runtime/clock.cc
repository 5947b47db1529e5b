#include "shim/runtime/clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace colltune::shim::clock {
namespace {

// Written once at MPI_Init (before any sampling thread reads it).
Rate rate;

bool InvariantTsc() {
#if defined(__x86_64__)
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u) {
    return false;
  }
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;
#else
  return false;
#endif
}

}  // namespace

void Calibrate() {
#if defined(__x86_64__)
  if (!InvariantTsc()) return;
  const uint64_t ns0 = MonotonicNs();
  const uint64_t tsc0 = __rdtsc();
  uint64_t ns1 = ns0, tsc1 = tsc0;
  while (ns1 - ns0 < 200000) {
    ns1 = MonotonicNs();
    tsc1 = __rdtsc();
  }
  if (tsc1 <= tsc0) return;
  Rate r;
  r.tsc = true;
  r.ns_per_tick = static_cast<double>(ns1 - ns0) / static_cast<double>(tsc1 - tsc0);
  // A rate outside 0.1-10 GHz means the counter is not what cpuid says.
  if (r.ns_per_tick < 0.1 || r.ns_per_tick > 10) return;
  rate = r;
#endif
}

const Rate& CurrentRate() { return rate; }

}  // namespace colltune::shim::clock
