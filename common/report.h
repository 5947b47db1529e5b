// The job report file: what a job's shim measured, written by rank 0 at
// MPI_Finalize (and periodically) into the spool directory, and sent to
// colltuned by the agent (`colltune flush`). A text format so an
// administrator can read a spooled report; the parser trusts nothing (the
// spool directory is writable by users) and the daemon checks again.
//
//   colltune-report 1
//   job <scheduler job id, or local>            distinct jobs count once
//   run <unique id of this mpirun>              a later report of the run replaces it
//   library <name>           library_version <version>
//   comm_size <n>   nodes <n>   ppn <n>   table_version <n>   final <0|1>   ranks <n>
//   timing <comm_size> <profile_id> <collective> <algorithm> <bucket> <calls>
//          <timed> <explored> <sum_ns> <first_bin> <n> <count>*n
//   counted <name> <bucket> <calls>   calls of a collective counted, not tuned
//   end
//
// (one key per line; `timing` lines on one line each). `end` guards
// against a file cut short.
#ifndef COLLTUNE_COMMON_REPORT_H_
#define COLLTUNE_COMMON_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/catalog.h"
#include "common/counted.h"
#include "common/job_context.h"

namespace colltune {

inline constexpr int kReportFormatVersion = 1;
inline constexpr size_t kMaxReportTextBytes = 8 << 20;

struct ReportTiming {
  int comm_size = 0;
  int64_t profile_id = 0;  // the section that decided the calls, 0: none
  Collective collective = Collective::kAllgather;
  Algorithm algorithm = Algorithm::kDefault;
  int bucket = 0;          // common/histogram.h
  uint64_t calls = 0;      // estimated
  uint64_t timed = 0;
  uint64_t explored = 0;
  uint64_t sum_ns = 0;
  int first_bin = 0;
  std::vector<uint64_t> bins;
};

// Calls of a non-blocking, persistent or neighbourhood collective
// (common/counted.h) in one message-size bucket, summed over ranks.
struct ReportCount {
  int id = 0;  // CountedInfoOf(id)
  int bucket = 0;
  uint64_t calls = 0;
};

struct Report {
  std::string job_id, run_id;
  JobContext context;  // its cluster is never sent: the daemon's own
  int64_t table_version = 0;
  bool final = true;
  int ranks = 1;
  std::vector<ReportTiming> timings;
  std::vector<ReportCount> counts;  // at most one per (id, bucket), calls > 0
};

std::string FormatReport(const Report& report);

// False with a message naming the line on anything malformed.
bool ParseReport(const std::string& text, Report* report, std::string* error);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_REPORT_H_
