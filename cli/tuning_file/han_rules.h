// Open MPI: coll/han's dynamic rules file (coll_han_dynamic_rules_filename,
// as 4.1 reads it: collective, topological level, configuration size and
// message size as numbers, the component by name; '#' comments anywhere). For a job launched with
// coll/han, it says which component runs each collective on the whole
// communicator, by message size: han's own hierarchy, or coll/tuned as if
// han were off. So a site can enable han for jobs and keep it only where
// colltune measured it faster.
#ifndef COLLTUNE_CLI_TUNING_FILE_HAN_RULES_H_
#define COLLTUNE_CLI_TUNING_FILE_HAN_RULES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/catalog.h"
#include "common/regime.h"

namespace colltune::cli::tuning_file {

// One point of a profile: default's and native:han's medians in one regime.
struct HanPoint {
  Collective collective;
  int64_t bytes;
  Regime regime;
  double default_seconds;
  double han_seconds;
};

// For one collective, from which message size on han runs (true) or
// coll/tuned (false); the first range starts at 0.
struct HanChoice {
  Collective collective;
  std::vector<std::pair<int64_t, bool>> ranges;
};

// The collectives the file chooses for: han measures their message size as
// colltune does (count times the type's size; barrier has none) and 4.1.4
// runs coll/tuned for them when told to. Not allreduce: 4.1.4's processes
// crash in MPI_Init when its rules send allreduce to coll/tuned (measured
// across 2 emulated nodes), so allreduce stays with han.
bool HanRulesChoose(Collective c);

// Per collective of HanRulesChoose with points: han at a measured size
// where it is faster than default by `margin` (0.05: 5 %) in every regime
// measured there, else tuned; a range changes halfway (geometrically)
// between two measured sizes.
std::vector<HanChoice> ChooseHan(const std::vector<HanPoint>& points, double margin);

// The file: `header` (comment lines), then the choices, and gather sent to
// coll/tuned at every size where `gather_to_tuned` (a han defect).
std::string HanRules(const std::vector<HanChoice>& choices, bool gather_to_tuned,
                     const std::string& header);

}  // namespace colltune::cli::tuning_file

#endif  // COLLTUNE_CLI_TUNING_FILE_HAN_RULES_H_
