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
//
// At the job's own size, where the job says how many nodes it spans, only a
// profile measured on as many nodes, and (where both recorded it) with ranks
// placed the same way, carries over (docs/architecture.md, "Node layouts"):
// the rules of one node (shared memory only) or of another node count say
// nothing about this job's network, and a placement changes which ranks
// share a node in every algorithm built on rank order. Without one, the job's
// section is withheld: empty, with the reason, so that no other size's
// section applies to the job's communicator either.
#ifndef COLLTUNE_DAEMON_MATCHING_H_
#define COLLTUNE_DAEMON_MATCHING_H_

#include <vector>

#include "absl/status/statusor.h"
#include "db/store.h"

namespace colltune::daemon {

struct ProfileChoice {
  std::vector<db::Profile> profiles;  // by communicator size, ascending
  // Why the job's own size has no profile although some were measured at
  // it (on other node counts); empty otherwise.
  std::string withheld;
};

// `candidates` are the profiles of the job's cluster. `job.library` and
// `job.library_version` may be empty when the caller (an administrator at the
// CLI) does not know them: that is fine as long as only one library (and
// version) matches. nodes and ppn may be 0.
absl::StatusOr<ProfileChoice> ChooseProfiles(
    const std::vector<db::Profile>& candidates, const db::ProfileKey& job,
    int max_sections);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_MATCHING_H_
