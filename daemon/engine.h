// The decision engine: from a profile's measurements to its decision rules.
//
// For every collective and measured message size, the candidate is the
// algorithm with the lowest median over launches of the per-launch median
// latency. It replaces `default` only if it is faster by at least the margin
// (seed 004 uses 10%), t_candidate <= (1 - margin) * t_default, and faster in
// every launch that measured both: launch-to-launch variance is real, and a
// win that one launch contradicts is not one to bet a job on. (A one-sided
// rank test over launches replaces this rule in a later version.) Sizes
// without a `default` measurement decide nothing. The decided sizes then cover the
// whole size axis: each owns the sizes nearest to it on a log scale (range
// boundaries at geometric midpoints), the first range starts at 0, the last
// has no upper bound, and neighbours with the same algorithm merge.
//
// Irregular collectives (gatherv, scatterv) are keyed by communicator size
// only, so they get no size ranges from here.
#ifndef COLLTUNE_DAEMON_ENGINE_H_
#define COLLTUNE_DAEMON_ENGINE_H_

#include <cstdint>
#include <vector>

#include "common/catalog.h"
#include "common/table.h"

namespace colltune::daemon {

struct EngineOptions {
  double margin = 0.10;
};

// The median latency of one point in one launch.
struct LaunchMedian {
  Collective collective = Collective::kAllgather;
  Algorithm algorithm = Algorithm::kDefault;
  int64_t msg_bytes = 0;
  int64_t launch = 0;  // identifies the launch (campaign and index)
  double median_seconds = 0;
};

// Rules sorted by (collective, min_bytes), covering [0, inf) for every
// collective with at least one decided size; `default` ranges included.
std::vector<Rule> ComputeRules(const std::vector<LaunchMedian>& points,
                               const EngineOptions& options);

// True if both rule lists decide the same (speedups may differ).
bool SameDecisions(const std::vector<Rule>& a, const std::vector<Rule>& b);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_ENGINE_H_
