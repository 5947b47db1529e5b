// The shim's settings, from the environment (the public contract in
// docs/architecture.md). Rank 0 reads the settings that decide algorithms and
// broadcasts their effect; COLLTUNE_DISABLE and COLLTUNE_VERBOSE are read by
// every rank for itself (the launcher must set COLLTUNE_DISABLE alike on all
// ranks, as mpirun does with any exported variable).
#ifndef COLLTUNE_SHIM_RUNTIME_CONFIG_H_
#define COLLTUNE_SHIM_RUNTIME_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

namespace colltune::shim {

inline constexpr int kDefaultTimeoutMs = 300;
inline constexpr uint64_t kDefaultMemBytes = uint64_t{64} << 20;

struct Config {
  std::string force;       // COLLTUNE_FORCE
  std::string table_path;  // COLLTUNE_TABLE
  std::string server;      // COLLTUNE_SERVER
  int timeout_ms = kDefaultTimeoutMs;       // COLLTUNE_TIMEOUT_MS
  uint64_t mem_bytes = kDefaultMemBytes;    // COLLTUNE_MEM_BYTES
  // COLLTUNE_AGENT: the `colltune` program that talks to the daemon; by
  // default the one installed next to the shim (see agent.h).
  std::string agent;
  // COLLTUNE_CACHE_DIR, else $XDG_CACHE_HOME/colltune, else
  // $HOME/.cache/colltune; empty if none of these is set.
  std::string cache_dir;
  // One message per variable that had a bad value (its default was used).
  std::vector<std::string> errors;
};

Config ReadConfig();

// COLLTUNE_DISABLE=1: pure pass-through, no communication of our own.
bool DisabledByEnvironment();
// COLLTUNE_VERBOSE, 0 if unset or invalid.
int VerboseFromEnvironment();

// Parses "65536", "64K", "64M", "1G" (binary multiples); false if invalid.
bool ParseByteCount(const char* text, uint64_t* bytes);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_CONFIG_H_
