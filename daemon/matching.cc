#include "daemon/matching.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace colltune::daemon {
namespace {

double LogDistance(int a, int b) {
  if (a <= 0 || b <= 0) return 0;  // unknown: no preference
  return std::fabs(std::log(static_cast<double>(a) / b));
}

// Placement and node sizes are known on both sides (an empty placement:
// not recorded, by an older shim or benchmark).
bool BothRecorded(const db::ProfileKey& a, const db::ProfileKey& b) {
  return !a.placement.empty() && !b.placement.empty();
}

// Smaller is better.
std::tuple<bool, double, double, std::string> Score(const db::Profile& p,
                                                    const db::ProfileKey& job) {
  const bool exact = (job.nodes == 0 || p.key.nodes == job.nodes) &&
                     (job.ppn == 0 || p.key.ppn == job.ppn) &&
                     (!BothRecorded(p.key, job) || p.key.node_sizes == job.node_sizes);
  // Later timestamps sort first: negate by inverting characters.
  std::string newest_first = p.updated_at;
  for (char& ch : newest_first) ch = static_cast<char>(0x7f - ch);
  return {!exact, LogDistance(p.key.ppn, job.ppn),
          LogDistance(p.key.nodes, job.nodes), newest_first};
}

}  // namespace

absl::StatusOr<ProfileChoice> ChooseProfiles(
    const std::vector<db::Profile>& candidates, const db::ProfileKey& job,
    int max_sections) {
  std::vector<const db::Profile*> same_library;
  std::set<std::pair<std::string, std::string>> libraries;
  for (const db::Profile& p : candidates) {
    if (p.key.cluster != job.cluster) continue;
    if (!job.library.empty() && p.key.library != job.library) continue;
    if (!job.library_version.empty() &&
        p.key.library_version != job.library_version) {
      continue;
    }
    same_library.push_back(&p);
    libraries.insert({p.key.library, p.key.library_version});
  }
  if ((job.library.empty() || job.library_version.empty()) &&
      libraries.size() > 1) {
    std::string names;
    for (const auto& [name, version] : libraries) {
      names += (names.empty() ? "" : ", ") + name + " " + version;
    }
    return absl::FailedPreconditionError(
        "profiles of several MPI libraries exist (" + names +
        "); name the library and its version");
  }
  std::map<int, const db::Profile*> best;  // comm size -> profile
  // What was measured at the job's size that does not carry over to it.
  std::set<std::string> elsewhere;
  for (const db::Profile* p : same_library) {
    if (p->key.comm_size > 2 * static_cast<int64_t>(job.comm_size)) continue;
    if (p->key.comm_size == job.comm_size && job.nodes > 0 && p->key.nodes > 0 &&
        p->key.nodes != job.nodes) {
      elsewhere.insert(std::to_string(p->key.nodes) +
                       (p->key.nodes == 1 ? " node" : " nodes"));
      continue;
    }
    if (p->key.comm_size == job.comm_size && BothRecorded(p->key, job) &&
        p->key.placement != job.placement) {
      elsewhere.insert(std::to_string(p->key.nodes) +
                       (p->key.nodes == 1 ? " node" : " nodes") + " with ranks placed " +
                       p->key.placement);
      continue;
    }
    auto it = best.find(p->key.comm_size);
    if (it == best.end() || Score(*p, job) < Score(*it->second, job)) {
      best[p->key.comm_size] = p;
    }
  }
  ProfileChoice choice;
  if (!elsewhere.empty() && best.count(job.comm_size) == 0) {
    std::string measured;
    for (const std::string& e : elsewhere) {
      measured += (measured.empty() ? "" : " or ") + e;
    }
    choice.withheld = std::to_string(job.comm_size) + " processes were measured on " +
                      measured + ", not on this job's " + std::to_string(job.nodes) +
                      (job.nodes == 1 ? " node" : " nodes") +
                      (job.placement.empty() ? "" : " with ranks placed " + job.placement) +
                      ": those rules do not carry over; the library's default runs";
  }
  std::vector<db::Profile>& out = choice.profiles;
  for (const auto& [size, p] : best) out.push_back(*p);
  // A withheld section takes one of the table's places.
  if (!choice.withheld.empty()) --max_sections;
  if (static_cast<int>(out.size()) > max_sections) {
    // Keep the sizes nearest to the job's own.
    std::stable_sort(out.begin(), out.end(),
                     [&](const db::Profile& a, const db::Profile& b) {
                       return LogDistance(a.key.comm_size, job.comm_size) <
                              LogDistance(b.key.comm_size, job.comm_size);
                     });
    out.resize(std::max(max_sections, 0));
    std::sort(out.begin(), out.end(),
              [](const db::Profile& a, const db::Profile& b) {
                return a.key.comm_size < b.key.comm_size;
              });
  }
  return choice;
}

}  // namespace colltune::daemon
