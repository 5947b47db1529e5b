// common/heap.h: after FixHeap, a block of a few MiB comes from the heap (not
// from its own mmap) and freeing it does not shrink the heap, so a
// collective's per-call temporary costs no page faults; a threshold set in
// the environment is kept.
#include "common/heap.h"

#include <malloc.h>
#include <stdlib.h>

#include <cstring>

#include <gtest/gtest.h>

namespace colltune {
namespace {

TEST(FixHeap, LargeBlocksComeFromTheHeapAndStayThere) {
  // Without the fix, a fresh process (glibc's initial thresholds, 128 KiB)
  // serves 4 MiB with mmap, and the checks below fail.
  for (const char* v : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
                        "MALLOC_MMAP_MAX_", "GLIBC_TUNABLES"}) {
    ASSERT_EQ(unsetenv(v), 0);
  }
  EXPECT_EQ(FixHeap().rfind("fixed", 0), 0u) << FixHeap();
  const struct mallinfo2 before = mallinfo2();
  char* block = static_cast<char*>(malloc(4 << 20));
  ASSERT_NE(block, nullptr);
  memset(block, 1, 4 << 20);
  const struct mallinfo2 holding = mallinfo2();
  EXPECT_EQ(holding.hblks, before.hblks) << "a 4 MiB block was mmapped";
  EXPECT_GE(holding.arena, before.arena + (4 << 20) - (64 << 10));
  free(block);
  const struct mallinfo2 after = mallinfo2();
  EXPECT_EQ(after.arena, holding.arena) << "free() trimmed the heap";
}

TEST(FixHeap, KeepsAThresholdTheEnvironmentSets) {
  ASSERT_EQ(setenv("MALLOC_TRIM_THRESHOLD_", "131072", 1), 0);
  EXPECT_EQ(FixHeap(), "as MALLOC_TRIM_THRESHOLD_ sets it");
  ASSERT_EQ(setenv("GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=131072", 1), 0);
  ASSERT_EQ(unsetenv("MALLOC_TRIM_THRESHOLD_"), 0);
  EXPECT_EQ(FixHeap(), "as GLIBC_TUNABLES sets it");
  ASSERT_EQ(setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=2", 1), 0);
  ASSERT_EQ(setenv("MALLOC_ARENA_MAX", "2", 1), 0);
  EXPECT_EQ(FixHeap().rfind("fixed", 0), 0u) << "MALLOC_ARENA_MAX does not set the state";
  unsetenv("GLIBC_TUNABLES");
  unsetenv("MALLOC_ARENA_MAX");
}

}  // namespace
}  // namespace colltune
