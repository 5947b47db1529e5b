#include "shim/runtime/config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace colltune::shim {
namespace {

const char* Env(const char* name) {
  const char* v = getenv(name);
  return (v != nullptr && v[0] != '\0') ? v : nullptr;
}

bool ParseInt(const char* text, long min, long max, long* out) {
  errno = 0;
  char* end = nullptr;
  long v = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < min || v > max) {
    return false;
  }
  *out = v;
  return true;
}

}  // namespace

bool ParseByteCount(const char* text, uint64_t* bytes) {
  if (text == nullptr || *text < '0' || *text > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0) return false;
  int shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10;
  if (*end == 'M' || *end == 'm') shift = 20;
  if (*end == 'G' || *end == 'g') shift = 30;
  if (shift != 0) ++end;
  if (*end == 'B' || *end == 'b') ++end;
  if (*end != '\0') return false;
  if (shift != 0 && v > (~0ULL >> shift)) return false;
  *bytes = static_cast<uint64_t>(v) << shift;
  return true;
}

bool ParseFraction(const char* text, double* fraction) {
  if (text == nullptr || *text == '\0') return false;
  errno = 0;
  char* end = nullptr;
  double v = strtod(text, &end);
  if (errno != 0 || end == text) return false;
  if (*end == '/') {
    const char* denominator = end + 1;
    double d = strtod(denominator, &end);
    if (errno != 0 || end == denominator || !(d > 0)) return false;
    v /= d;
  }
  if (*end != '\0' || !(v >= 0) || v > 1) return false;
  *fraction = v;
  return true;
}

std::string SchedulerJobId() {
  struct Source {
    const char* variable;
    const char* prefix;
  };
  for (const Source& s : {Source{"SLURM_JOB_ID", "slurm:"}, Source{"PBS_JOBID", "pbs:"},
                          Source{"LSB_JOBID", "lsf:"}, Source{"FLUX_JOB_ID", "flux:"},
                          Source{"JOB_ID", "sge:"}}) {
    if (const char* v = Env(s.variable)) return std::string(s.prefix) + v;
  }
  return "";
}

bool DisabledByEnvironment() {
  const char* v = Env("COLLTUNE_DISABLE");
  return v != nullptr && strcmp(v, "0") != 0;
}

bool HeapFixedByEnvironment() {
  const char* v = Env("COLLTUNE_HEAP");
  return v != nullptr && strcmp(v, "fixed") == 0;
}

int VerboseFromEnvironment() {
  const char* v = Env("COLLTUNE_VERBOSE");
  long level = 0;
  if (v == nullptr || !ParseInt(v, 0, 9, &level)) return 0;
  return static_cast<int>(level);
}

Config ReadConfig() {
  Config c;
  if (const char* v = Env("COLLTUNE_FORCE")) c.force = v;
  if (const char* v = Env("COLLTUNE_TABLE")) c.table_path = v;
  if (const char* v = Env("COLLTUNE_SERVER")) c.server = v;
  if (const char* v = Env("COLLTUNE_AGENT")) c.agent = v;
  if (const char* v = Env("COLLTUNE_TLS_CA")) c.tls_ca = v;
  if (const char* v = Env("COLLTUNE_TIMEOUT_MS")) {
    long ms = 0;
    if (ParseInt(v, 1, 600000, &ms)) {
      c.timeout_ms = static_cast<int>(ms);
    } else {
      c.errors.push_back(std::string("COLLTUNE_TIMEOUT_MS='") + v +
                         "' is not a number of milliseconds in 1..600000; "
                         "using " + std::to_string(kDefaultTimeoutMs));
    }
  }
  if (const char* v = Env("COLLTUNE_MEM_BYTES")) {
    uint64_t bytes = 0;
    if (ParseByteCount(v, &bytes)) {
      c.mem_bytes = bytes;
    } else {
      c.errors.push_back(std::string("COLLTUNE_MEM_BYTES='") + v +
                         "' is not a byte count (e.g. 67108864 or 64M); "
                         "using " + std::to_string(kDefaultMemBytes));
    }
  }
  if (const char* v = Env("COLLTUNE_CACHE_DIR")) {
    c.cache_dir = v;
  } else if (const char* xdg = Env("XDG_CACHE_HOME")) {
    c.cache_dir = std::string(xdg) + "/colltune";
  } else if (const char* home = Env("HOME")) {
    c.cache_dir = std::string(home) + "/.cache/colltune";
  }
  if (const char* v = Env("COLLTUNE_SPOOL_DIR")) {
    c.spool_dir = v;
  } else if (!c.cache_dir.empty()) {
    c.spool_dir = c.cache_dir + "/spool";
  }
  c.report = !c.server.empty() || Env("COLLTUNE_SPOOL_DIR") != nullptr;
  if (const char* v = Env("COLLTUNE_REPORT")) {
    if (strcmp(v, "0") == 0) {
      c.report = false;
    } else if (strcmp(v, "1") == 0) {
      c.report = true;
    } else {
      c.errors.push_back(std::string("COLLTUNE_REPORT='") + v + "' is not 0 or 1");
    }
  }
  if (c.spool_dir.empty()) c.report = false;
  if (const char* v = Env("COLLTUNE_SAMPLE")) {
    if (!ParseFraction(v, &c.sample)) {
      c.errors.push_back(std::string("COLLTUNE_SAMPLE='") + v +
                         "' is not a fraction in [0, 1] (e.g. 1/128 or 0.05); "
                         "using 1/128");
      c.sample = 1.0 / 128;
    }
  }
  if (const char* v = Env("COLLTUNE_EXPLORE")) {
    if (!ParseFraction(v, &c.explore)) {
      c.errors.push_back(std::string("COLLTUNE_EXPLORE='") + v +
                         "' is not a fraction in [0, 1]; using 0.01");
      c.explore = 0.01;
    }
  }
  if (const char* v = Env("COLLTUNE_EXPLORE_MIN_CALLS")) {
    long n = 0;
    if (ParseInt(v, 0, 1L << 40, &n)) {
      c.explore_min_calls = static_cast<uint64_t>(n);
    } else {
      c.errors.push_back(std::string("COLLTUNE_EXPLORE_MIN_CALLS='") + v +
                         "' is not a count; using 1000");
    }
  }
  if (const char* v = Env("COLLTUNE_REPORT_INTERVAL")) {
    long seconds = 0;
    if (ParseInt(v, 0, 1L << 30, &seconds)) {
      c.report_interval_s = static_cast<int>(seconds);
    } else {
      c.errors.push_back(std::string("COLLTUNE_REPORT_INTERVAL='") + v +
                         "' is not a number of seconds; using 600");
    }
  }
  if (const char* v = Env("COLLTUNE_REPRODUCIBLE")) {
    if (strcmp(v, "1") == 0) {
      c.reproducible = true;
    } else if (strcmp(v, "0") != 0) {
      c.errors.push_back(std::string("COLLTUNE_REPRODUCIBLE='") + v +
                         "' is not 0 or 1; exploring as usual");
    }
  }
  if (const char* v = Env("COLLTUNE_HEAP")) {
    if (strcmp(v, "fixed") != 0 && strcmp(v, "keep") != 0) {
      c.errors.push_back(std::string("COLLTUNE_HEAP='") + v +
                         "' is not fixed or keep; the heap was left as the job has it");
    }
  }
  if (const char* v = Env("COLLTUNE_JOB_ID")) {
    c.job_id = v;
  } else {
    c.job_id = SchedulerJobId();
  }
  return c;
}

}  // namespace colltune::shim
