// Job reports: what jobs measured of themselves under the shim, the evidence
// of online tuning (a part of the Store, db/store.h).
#ifndef COLLTUNE_DB_REPORT_STORE_H_
#define COLLTUNE_DB_REPORT_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/catalog.h"
#include "db/connection.h"
#include "db/profile.h"

namespace colltune::db {

// One entry of a job report (proto JobTiming), resolved: `profile_id` is the
// profile the evidence belongs to, 0 if none could take it.
struct JobTimingInput {
  Collective collective = Collective::kAllgather;
  Algorithm algorithm = Algorithm::kDefault;
  int64_t min_bytes = 0;
  int64_t max_bytes = 0;
  int64_t calls = 0;
  int64_t timed_calls = 0;
  double total_seconds = 0;
  int64_t profile_id = 0;
  int comm_size = 0;
  int64_t explored_calls = 0;
  int first_bin = 0;
  std::vector<uint64_t> bins;
  double median_seconds = 0;  // of the histogram
};

// Calls of a counted (not tuned) collective in one size bucket (proto
// CountedCalls), validated.
struct CountedCallsRow {
  std::string kind, collective;
  int64_t min_bytes = 0, max_bytes = 0;
  int64_t calls = 0;
};

struct JobReportInput {
  int64_t profile_id = 0;  // the job's own context
  std::string job_id;
  std::string run_id;
  int64_t table_version = 0;
  std::string source = "online";
  bool final = true;
  int ranks = 1;
  // Who sent it (colltuned --auth munge), -1: not authenticated.
  int64_t uid = -1, gid = -1;
  std::string slurm_job_id;  // empty: not a Slurm job
  std::vector<JobTimingInput> timings;
  std::vector<CountedCallsRow> counted;
};

// One job's median for one (collective, size bucket, algorithm) of a profile.
struct OnlinePoint {
  Collective collective = Collective::kAllgather;
  Algorithm algorithm = Algorithm::kDefault;
  int64_t min_bytes = 0, max_bytes = 0;
  int64_t report_id = 0;  // one per run
  std::string job_id;     // runs of one job share it
  int64_t uid = -1;       // the sender munged vouched for, -1: unknown
  double median_seconds = 0;
  int64_t timed_calls = 0;
  int64_t explored_calls = 0;
};

// One stored job report with its timings (those attributed to any profile).
struct JobReportRow {
  int64_t id = 0;
  std::string job_id, run_id, received_at, source;
  int64_t table_version = 0;
  bool final = true;
  int ranks = 1;
  int64_t uid = -1, gid = -1;  // -1: not authenticated
  std::string slurm_job_id;
  struct Timing {
    Collective collective = Collective::kAllgather;
    Algorithm algorithm = Algorithm::kDefault;
    int64_t min_bytes = 0, max_bytes = 0;
    int64_t calls = 0, timed_calls = 0, explored_calls = 0;
    double median_seconds = 0;
  };
  std::vector<Timing> timings;
  std::vector<CountedCallsRow> counted;  // by collective, then size
};

class ReportStore {
 public:
  explicit ReportStore(Connection* c) : c_(c) {}

  // Stores a job report, replacing an earlier one of the same (profile,
  // job_id, run_id). Returns (report id, whether one was replaced).
  absl::StatusOr<std::pair<int64_t, bool>> PutJobReport(const JobReportInput& r);
  // Online evidence of the profile: for each (collective, bucket, algorithm)
  // the newest `window` runs with at least `min_timed` timed calls.
  // The profile's job reports and the newest one's arrival (the rest: 0).
  absl::StatusOr<ProfileCounts> Counts(int64_t profile_id);
  absl::StatusOr<std::vector<OnlinePoint>> OnlinePoints(int64_t profile_id,
                                                        int window,
                                                        int64_t min_timed);
  // The profile's newest `limit` job reports (its own context's), newest
  // first, and how many it has in all.
  absl::StatusOr<std::pair<std::vector<JobReportRow>, int>> JobReports(
      int64_t profile_id, int limit);

 private:
  Connection* c_;
};

}  // namespace colltune::db

#endif  // COLLTUNE_DB_REPORT_STORE_H_
