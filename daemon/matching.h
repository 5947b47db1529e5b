// Which profiles answer a table request.
//
// A job gets one table section per measured communicator size of its
// cluster and MPI library (exact name and version), for sizes up to twice
// its own: the shim applies the nearest section within a factor of 2 to each
// communicator (common/table.h, SelectSection), so sub-communicators are
// served too. When several profiles share a communicator size (measured on
// different node layouts), the one closest to the job's layout wins: same
// nodes and ppn first, then the nearest ppn, then the nearest node count, then
// the most recently updated.
#ifndef COLLTUNE_DAEMON_MATCHING_H_
#define COLLTUNE_DAEMON_MATCHING_H_

#include <vector>

#include "absl/status/statusor.h"
#include "db/store.h"

namespace colltune::daemon {

// `candidates` are the profiles of the job's cluster. `job.library` and
// `job.library_version` may be empty when the caller (an administrator at the
// CLI) does not know them: that is fine as long as only one library (and
// version) matches. nodes and ppn may be 0.
absl::StatusOr<std::vector<db::Profile>> ChooseProfiles(
    const std::vector<db::Profile>& candidates, const db::ProfileKey& job,
    int max_sections);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_MATCHING_H_
