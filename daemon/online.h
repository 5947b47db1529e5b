// Online evidence: the medians of jobs' reports laid over the campaign's
// decisions where they are decisive (docs/architecture.md, online evidence). Internal
// to the engine.
#ifndef COLLTUNE_DAEMON_ONLINE_H_
#define COLLTUNE_DAEMON_ONLINE_H_

#include <vector>

#include "common/table.h"
#include "daemon/engine.h"

namespace colltune::daemon {

// The online decisions, one per size bucket where the current choice has
// enough jobs, laid over the campaign's.
void ApplyOnline(const std::vector<JobMedian>& online,
                 const std::vector<Rule>& current, const EngineOptions& o,
                 std::vector<Decision>* decisions);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_ONLINE_H_
