#include "daemon/observed.h"

#include <map>
#include <utility>

namespace colltune::daemon {

std::vector<CollectiveObserved> ObserveCollectives(
    const std::vector<db::JobReportRow::Timing>& timings) {
  // collective -> bucket (min_bytes) -> that bucket's cells
  std::map<int, std::map<int64_t, std::vector<const db::JobReportRow::Timing*>>>
      cells;
  for (const db::JobReportRow::Timing& t : timings) {
    cells[IndexOf(t.collective)][t.min_bytes].push_back(&t);
  }
  std::vector<CollectiveObserved> out;
  for (const auto& [collective, buckets] : cells) {
    CollectiveObserved o;
    o.collective = buckets.begin()->second.front()->collective;
    bool tuned_anywhere = false;
    double default_time = 0, choice_time = 0;
    for (const auto& [bucket, in_bucket] : buckets) {
      // The table's choice is the algorithm that ran the calls not spent
      // exploring; the others in the bucket are explored alternatives.
      const db::JobReportRow::Timing* choice = nullptr;
      const db::JobReportRow::Timing* fallback = nullptr;
      for (const db::JobReportRow::Timing* t : in_bucket) {
        o.calls += t->calls;
        if (t->algorithm == Algorithm::kDefault) fallback = t;
        if (choice == nullptr || t->timed_calls - t->explored_calls >
                                     choice->timed_calls - choice->explored_calls) {
          choice = t;
        }
      }
      if (choice->algorithm == Algorithm::kDefault) continue;
      tuned_anywhere = true;
      o.tuned_calls += choice->calls;
      if (fallback == nullptr || fallback->timed_calls < kMinComparedTimedCalls ||
          fallback->median_seconds <= 0 || choice->median_seconds <= 0) {
        continue;
      }
      default_time += static_cast<double>(choice->calls) * fallback->median_seconds;
      choice_time += static_cast<double>(choice->calls) * choice->median_seconds;
      o.compared_calls += choice->calls;
    }
    if (tuned_anywhere) {
      o.speedup = choice_time > 0 ? default_time / choice_time : 0;
    }
    out.push_back(o);
  }
  return out;
}

}  // namespace colltune::daemon
