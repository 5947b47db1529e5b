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
  // COLLTUNE_TLS_CA: the daemon is behind TLS; only the agent (gRPC's own
  // TLS) can ask it, the shim's own call cannot.
  std::string tls_ca;
  // COLLTUNE_CACHE_DIR, else $XDG_CACHE_HOME/colltune, else
  // $HOME/.cache/colltune; empty if none of these is set.
  std::string cache_dir;
  // Online measurement (observer.h, report.h). Reporting is on when a
  // daemon or a spool directory is configured (COLLTUNE_REPORT=0 turns it
  // off); without reporting nothing is sampled.
  bool report = false;             // COLLTUNE_REPORT
  std::string spool_dir;           // COLLTUNE_SPOOL_DIR, else CACHE_DIR/spool
  double sample = 1.0 / 128;       // COLLTUNE_SAMPLE: fraction of calls timed
  double explore = 0.01;           // COLLTUNE_EXPLORE: fraction of a bucket's calls
  uint64_t explore_min_calls = 1000;  // COLLTUNE_EXPLORE_MIN_CALLS
  int report_interval_s = 600;     // COLLTUNE_REPORT_INTERVAL: snapshots; 0 none
  std::string job_id;              // COLLTUNE_JOB_ID, else the scheduler's
  // COLLTUNE_REPRODUCIBLE=1 (or a table marked `reproducible`): no
  // exploration, each call runs what the fetched table says.
  bool reproducible = false;
  // One message per variable that had a bad value (its default was used).
  std::vector<std::string> errors;
};

Config ReadConfig();

// COLLTUNE_DISABLE=1: pure pass-through, no communication of our own.
bool DisabledByEnvironment();
// COLLTUNE_HEAP: true if it is "fixed": the C library's heap is put in the
// state campaigns measure in (common/heap.h) before the MPI library starts.
// "keep" (the default) leaves it as the job has it: the state speeds some
// collectives up many times and slows others by a third in programs that
// never free a large block (docs/results-2026-11-28.md, "A program's
// heap"), so it is the site's choice. Any other value counts as "keep"
// (ReadConfig says so).
bool HeapFixedByEnvironment();
// COLLTUNE_VERBOSE, 0 if unset or invalid.
int VerboseFromEnvironment();

// Parses "65536", "64K", "64M", "1G" (binary multiples); false if invalid.
bool ParseByteCount(const char* text, uint64_t* bytes);

// Parses a fraction "0.01", "1/64" or "0" into [0, 1]; false if invalid.
bool ParseFraction(const char* text, double* fraction);

// The scheduler's job id ("slurm:123", "pbs:...", ...) or "" outside one.
std::string SchedulerJobId();

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_CONFIG_H_
