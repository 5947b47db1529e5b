// A profile's whole-job choices (AlgorithmInfo::at_launch, e.g. native:han)
// next to default at the same point and regime: what `colltune profile`
// judges and `colltune export --format han-rules` writes from.
#ifndef COLLTUNE_CLI_WHOLE_JOB_H_
#define COLLTUNE_CLI_WHOLE_JOB_H_

#include <cstdint>
#include <string>
#include <vector>

#include "proto/colltune.pb.h"
#include "common/catalog.h"
#include "common/regime.h"

namespace colltune::cli {

struct WholeJobPoint {
  std::string algorithm;  // "native:han"
  Collective collective;
  std::string problem;    // irregular collectives' distribution, else ""
  int64_t bytes;
  Regime regime;
  double default_seconds;
  double choice_seconds;
};

// Every point where the profile has both a whole-job choice's median and
// default's, positive, in the same regime.
std::vector<WholeJobPoint> WholeJobPoints(const v1::GetProfileResponse& profile);

}  // namespace colltune::cli

#endif  // COLLTUNE_CLI_WHOLE_JOB_H_
