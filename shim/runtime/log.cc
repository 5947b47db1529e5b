#include "shim/runtime/log.h"

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace colltune::shim {
namespace {

std::atomic<int> g_verbose{0};

void Write(const char* format, va_list args) {
  char line[1024];
  int n = snprintf(line, sizeof line, "colltune: ");
  int m = vsnprintf(line + n, sizeof line - n - 1, format, args);
  if (m < 0) return;
  n += m;
  if (n > static_cast<int>(sizeof line) - 2) n = sizeof line - 2;
  line[n++] = '\n';
  // One write() per line, so lines of different ranks do not interleave.
  ssize_t ignored = write(STDERR_FILENO, line, n);
  (void)ignored;
}

}  // namespace

int VerboseLevel() { return g_verbose.load(std::memory_order_relaxed); }

void SetVerboseLevel(int level) {
  g_verbose.store(level, std::memory_order_relaxed);
}

void LogError(const char* format, ...) {
  va_list args;
  va_start(args, format);
  Write(format, args);
  va_end(args);
}

void LogInfo(int level, const char* format, ...) {
  if (VerboseLevel() < level) return;
  va_list args;
  va_start(args, format);
  Write(format, args);
  va_end(args);
}

}  // namespace colltune::shim
