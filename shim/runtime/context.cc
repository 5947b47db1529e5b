#include "shim/runtime/context.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include <unordered_map>
#include <cstdint>
#include <vector>

#include "common/layout.h"
#include "common/library_id.h"

namespace colltune::shim {

namespace {

// Set by every launcher the two libraries use (mpirun, Hydra, srun with PMI
// or PMIx): a single process without them was started as a singleton. Open
// MPI's singleton starts a PMIx server of its own and says so in ess.
bool LaunchedByLauncher() {
  const char* ess = getenv("OMPI_MCA_ess");
  if (ess != nullptr && strcmp(ess, "singleton") == 0) return false;
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMIX_RANK", "PMI_SIZE",
                        "MPI_LOCALNRANKS", "SLURM_PROCID"}) {
    if (getenv(v) != nullptr) return true;
  }
  return false;
}

}  // namespace

int DetectContext(MPI_Comm comm, JobContext* context, std::string* why) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int length = 0;
  int rc = PMPI_Get_library_version(version, &length);
  if (rc != MPI_SUCCESS) return rc;
  LibraryId id = ParseLibraryVersion(std::string(version, length));
  context->library = id.name;
  context->library_version = id.version;

  rc = PMPI_Comm_size(comm, &context->comm_size);
  if (rc != MPI_SUCCESS) return rc;
  // Nodes are told apart by host name: one gather of a 64-bit hash per
  // rank. MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) says the same but costs
  // 3.5-8 ms in MPICH's MPI_Init path (a communicator built with its own
  // allgathers and context-id agreement); this costs one small gather.
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  // 0 stands for "no host name": the hash of any name is never 0 in practice,
  // and a job where some rank has none cannot be told apart into nodes.
  uint64_t hash = 0;
  if (host[0] != 0) {
    hash = 1469598103934665603ull;  // FNV-1a
    for (const char* c = host; *c != 0; ++c) {
      hash = (hash ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
    }
  }
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  // A Gatherv, not a Gather: Open MPI 4.1's coll/han, when a job enables it,
  // returns nothing at the root of MPI_Gather where ranks are not placed node
  // by node (repairs.h), which is exactly the layout this finds out.
  std::vector<uint64_t> hashes(rank == 0 ? context->comm_size : 0);
  std::vector<int> ones(rank == 0 ? context->comm_size : 0, 1), at(ones.size());
  for (size_t r = 0; r < at.size(); ++r) at[r] = static_cast<int>(r);
  rc = PMPI_Gatherv(&hash, 1, MPI_UINT64_T, hashes.data(), ones.data(), at.data(),
                    MPI_UINT64_T, 0, comm);
  if (rc != MPI_SUCCESS) return rc;
  // Rank 0 numbers the nodes in order of their first rank.
  std::vector<int> node_of(hashes.size());
  std::unordered_map<uint64_t, int> node_of_host;
  int unnamed = 0;
  for (size_t r = 0; r < hashes.size(); ++r) {
    unnamed += hashes[r] == 0 ? 1 : 0;
    node_of[r] = node_of_host.emplace(hashes[r], static_cast<int>(node_of_host.size()))
                     .first->second;
  }
  if (unnamed > 0) std::fill(node_of.begin(), node_of.end(), 0);
  if (rank == 0) {
    DescribeLayout(node_of, context);
    if (why != nullptr && unnamed > 0) {
      *why = "the host name of " + std::to_string(unnamed) + " of " +
             std::to_string(hashes.size()) +
             " processes could not be read (gethostname failed): the job counts as one "
             "node";
    } else if (why != nullptr && context->comm_size == 1 && !LaunchedByLauncher()) {
      *why = "a single process started without a launcher (singleton): one node";
    }
  }
  return MPI_SUCCESS;
}

}  // namespace colltune::shim
