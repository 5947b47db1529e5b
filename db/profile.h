// A profile: the measurements and decisions of one job context.
#ifndef COLLTUNE_DB_PROFILE_H_
#define COLLTUNE_DB_PROFILE_H_

#include <cstdint>
#include <string>

#include "common/job_context.h"

namespace colltune::db {

// A profile is keyed by its job context.
using ProfileKey = JobContext;

struct Profile {
  int64_t id = 0;
  ProfileKey key;
  std::string created_at;
  std::string updated_at;
};

struct ProfileCounts {
  int campaigns = 0;
  int launches = 0;      // distinct (campaign, launch) pairs
  int measurements = 0;  // stored points over all launches
  int job_reports = 0;
  std::string last_report_at;  // the newest job report's arrival; "" if none
};

}  // namespace colltune::db

#endif  // COLLTUNE_DB_PROFILE_H_
