#include "shim/runtime/repairs.h"

#include <memory>

#include "common/quirks.h"
#include "shim/coll/datatype.h"
#include "shim/coll/datatype_class.h"
#include "shim/coll/quirks.h"
#include "shim/native/controls.h"

namespace colltune::shim {
namespace {

// Open MPI's coll/han, enabled for the job (its priority above coll/tuned's),
// gathers at the root into a scratch buffer and copies it out in the wrong
// direction wherever a communicator's ranks are not placed node by node, so
// MPI_Gather leaves the root's buffer untouched (common/quirks.h,
// HanGatherDefect). Its Gatherv, Allgather and the rest are right.
bool HanGatherIsWrong(const JobContext& context, int thread_level) {
  if (context.library != "Open MPI" || context.nodes < 2 ||
      !HanGatherDefect(context.library_version)) {
    return false;
  }
  std::vector<std::string> notes;
  std::unique_ptr<Controls> controls = Controls::Open(thread_level, &notes);
  return controls != nullptr && HanOutranksTuned(*controls).value_or(false);
}

}  // namespace

Algorithm MixedTypesRepair(Collective c) {
  if (!kMixedTypesBreakGatherScatter) return Algorithm::kDefault;
  if (c == Collective::kGather) return Algorithm::kGatherAsPacked;
  if (c == Collective::kScatter) return Algorithm::kScatterAsPacked;
  return Algorithm::kDefault;
}

bool NeedsMixedTypesRepair(MPI_Datatype type) {
  // Predefined types (the pairs among them) answer without an MPI call; a
  // derived type's class, cached on it, says both things at once.
  if (IsPredefinedType(type)) return MixesBasicTypes(type);
  return ClassOf(type).Mixed();
}

std::vector<std::string> RepairLibraryDefects(const JobContext& context, int thread_level,
                                              Table* table) {
  std::vector<std::string> said;
  for (Collective c : {Collective::kGather, Collective::kScatter}) {
    const Algorithm repair = MixedTypesRepair(c);
    if (repair == Algorithm::kDefault) continue;
    const std::optional<Algorithm>& forced = table->forced[IndexOf(c)];
    const std::string why = "MPICH's MPI_" + std::string(c == Collective::kGather ? "Gather" : "Scatter") +
                            " aborts (\"Message truncated\") on datatypes mixing basic types";
    said.push_back(forced ? why + "; COLLTUNE_FORCE " + std::string(InfoOf(c).name) + "=" +
                                std::string(InfoOf(*forced).name) + " is kept as asked"
                          : why + ": every such call runs " +
                                std::string(InfoOf(repair).name) + " on bytes");
  }
  if (!HanGatherIsWrong(context, thread_level)) return said;
  std::optional<Algorithm>& gather = table->forced[IndexOf(Collective::kGather)];
  const std::string why =
      "Open MPI " + context.library_version +
      " with coll/han enabled returns nothing at the root of MPI_Gather where ranks are "
      "not placed node by node (open-mpi/ompi issue 11664)";
  if (gather && *gather != Algorithm::kDefault && !IsNative(*gather)) {
    said.push_back(why + "; gather is forced to " + std::string(InfoOf(*gather).name) +
                   " already");
    return said;
  }
  if (gather) {
    said.push_back(why + "; COLLTUNE_FORCE gather=" + std::string(InfoOf(*gather).name) +
                   " is kept as asked, and may give wrong results");
    return said;
  }
  gather = Algorithm::kGatherAsGatherv;
  said.push_back(why + ": every MPI_Gather runs gather_as_gatherv");
  return said;
}

}  // namespace colltune::shim
