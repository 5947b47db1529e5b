#include "common/heap.h"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

extern char** environ;

namespace colltune {

namespace {

// A variable that sets the thresholds FixHeap would set: an operator who
// sets one chose the state, for a campaign or for a job, and it is kept.
// (Others, such as MALLOC_ARENA_MAX, do not decide the state.)
const char* HeapVariable() {
  static const char* const kVariables[] = {"MALLOC_MMAP_THRESHOLD_=", "MALLOC_TRIM_THRESHOLD_=",
                                           "MALLOC_TOP_PAD_=", "MALLOC_MMAP_MAX_="};
  static const char* const kTunables[] = {"glibc.malloc.mmap_threshold",
                                          "glibc.malloc.trim_threshold",
                                          "glibc.malloc.top_pad", "glibc.malloc.mmap_max"};
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    for (const char* v : kVariables) {
      if (strncmp(*e, v, strlen(v)) == 0) return *e;
    }
    if (strncmp(*e, "GLIBC_TUNABLES=", 15) == 0) {
      for (const char* t : kTunables) {
        if (strstr(*e, t) != nullptr) return *e;
      }
    }
  }
  return nullptr;
}

}  // namespace

std::string FixHeap() {
#if defined(__GLIBC__)
  if (const char* chosen = HeapVariable()) {
    const char* eq = strchr(chosen, '=');
    return "as " + std::string(chosen, eq != nullptr ? eq - chosen : strlen(chosen)) +
           " sets it";
  }
  // 32 MiB is the largest mmap threshold glibc accepts on 64-bit systems.
  constexpr int kMmapThreshold = 32 << 20;
  constexpr int kTrimThreshold = 64 << 20;
  if (mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 &&
      mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1) {
    return "fixed: blocks up to 32 MiB from it, trimmed beyond 64 MiB";
  }
  return "as glibc keeps it (mallopt refused)";
#else
  return "as the C library keeps it (not glibc)";
#endif
}

}  // namespace colltune
