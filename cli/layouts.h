// The node layouts `colltune campaign` and `colltune evaluate` run on
// (--layouts): one campaign (or evaluation) per layout, each placed by the
// launcher the way the jobs it tunes are placed.
#ifndef COLLTUNE_CLI_LAYOUTS_H_
#define COLLTUNE_CLI_LAYOUTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace colltune::cli {

struct LayoutSpec {
  std::string text;        // as given: "2x2", "4x1", "3+1", "2x2:round_robin"
  std::vector<int> sizes;  // processes per node, in node order
  bool round_robin = false;
  int np() const;
  bool regular() const;
};

// "NxK" (N nodes of K processes) or "a+b+..." (one node each), optionally
// followed by ":block" (the default) or ":round_robin".
absl::StatusOr<std::vector<LayoutSpec>> ParseLayouts(const std::vector<std::string>& specs);

// The mpirun options that place a job as `layout` on the first nodes of
// `hosts`: Open MPI's --host (and --map-by node), or MPICH Hydra's -hosts.
// An error when there are too few hosts or the library cannot place it so.
absl::StatusOr<std::vector<std::string>> MpirunPlacement(const LayoutSpec& layout,
                                                        const std::vector<std::string>& hosts,
                                                        bool mpich);

}  // namespace colltune::cli

#endif  // COLLTUNE_CLI_LAYOUTS_H_
