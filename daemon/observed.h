// What a job report says about the table's choices: per collective, how
// many calls the table sent to mock-ups and how much faster they ran than
// default did within the same job. The shim explores default now and then
// (COLLTUNE_EXPLORE), so a job that ran a mock-up usually carries its own
// default timings to compare with; no other job's or campaign's numbers are
// mixed in, so the speedup is what this job saw.
#ifndef COLLTUNE_DAEMON_OBSERVED_H_
#define COLLTUNE_DAEMON_OBSERVED_H_

#include <cstdint>
#include <vector>

#include "common/catalog.h"
#include "db/store.h"

namespace colltune::daemon {

struct CollectiveObserved {
  Collective collective = Collective::kAllgather;
  int64_t calls = 0;
  int64_t tuned_calls = 0;
  // Time default took per call / time the choice took, weighted by the
  // choice's calls, over the buckets where both were timed; 1 if the table
  // kept default in every bucket, 0 if it did not and nothing compares.
  double speedup = 1;
  int64_t compared_calls = 0;
};

// A default cell needs this many timed calls to stand for default.
inline constexpr int64_t kMinComparedTimedCalls = 3;

// One entry per collective the timings mention, in catalog order.
std::vector<CollectiveObserved> ObserveCollectives(
    const std::vector<db::JobReportRow::Timing>& timings);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_OBSERVED_H_
