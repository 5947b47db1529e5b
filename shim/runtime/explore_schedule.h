// Which of a bucket's exploration bursts run, so that a long job's
// exploring costs grow with the logarithm of its calls, not in proportion.
//
// Promises: a function of its argument only (every rank computes the same);
// the first kFullRateBursts candidates all run; after them every doubling of
// the candidates adds kFullRateBursts / 2 bursts (the rate halves each time);
// the bursts that run are numbered 1, 2, 3, ... without gaps, so schedules
// that alternate by a burst's number (default every other burst,
// shim/intercept/collectives.cc) keep alternating.
//
// Why: one job's evidence needs a few dozen timed calls per algorithm
// (daemon/engine.h, revert_min_calls), which the full-rate bursts give a
// bucket within ~33 000 calls past explore_min_calls at the defaults; at the
// same rate a job of millions of calls would keep running slower
// alternatives 1 % of the time for no new evidence.
#ifndef COLLTUNE_SHIM_RUNTIME_EXPLORE_SCHEDULE_H_
#define COLLTUNE_SHIM_RUNTIME_EXPLORE_SCHEDULE_H_

#include <cstdint>

namespace colltune::shim {

inline constexpr uint64_t kFullRateBursts = 64;

// Whether the bucket's `candidate`-th burst (1, 2, ...: every explore_every
// events) runs; if so, *ordinal is its number among those that run.
inline bool BurstRuns(uint64_t candidate, uint64_t* ordinal) {
  if (candidate <= kFullRateBursts) {
    *ordinal = candidate;
    return candidate > 0;
  }
  // Candidates in (lo, 2 lo] run every `stride`-th, lo = kFullRateBursts *
  // stride / 2.
  uint64_t lo = kFullRateBursts, stride = 2, before = kFullRateBursts;
  while (candidate > 2 * lo) {
    before += kFullRateBursts / 2;
    lo *= 2;
    stride *= 2;
  }
  const uint64_t offset = candidate - lo;
  if (offset % stride != 0) return false;
  *ordinal = before + offset / stride;
  return true;
}

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_EXPLORE_SCHEDULE_H_
