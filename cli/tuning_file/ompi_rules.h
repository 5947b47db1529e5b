// Open MPI: coll/tuned's dynamic rules file (format 1, read with "%li", so
// '#' comments anywhere), from each collective's entries (coverage.h).
#ifndef COLLTUNE_CLI_TUNING_FILE_OMPI_RULES_H_
#define COLLTUNE_CLI_TUNING_FILE_OMPI_RULES_H_

#include <string>
#include <utility>
#include <vector>

#include "cli/tuning_file/coverage.h"

namespace colltune::cli::tuning_file {

// The file's text: `header` (comment lines), then the collectives.
std::string OmpiRules(const std::vector<std::pair<Collective, std::vector<Row>>>& colls,
                      const std::string& header);

}  // namespace colltune::cli::tuning_file

#endif  // COLLTUNE_CLI_TUNING_FILE_OMPI_RULES_H_
