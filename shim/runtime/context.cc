#include "shim/runtime/context.h"

#include <unistd.h>

#include <unordered_map>
#include <cstdint>
#include <vector>

#include "common/layout.h"
#include "common/library_id.h"

namespace colltune::shim {

int DetectContext(MPI_Comm comm, JobContext* context) {
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
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (const char* c = host; *c != 0; ++c) {
    hash = (hash ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
  }
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  std::vector<uint64_t> hashes(rank == 0 ? context->comm_size : 0);
  rc = PMPI_Gather(&hash, 1, MPI_UINT64_T, hashes.data(), 1, MPI_UINT64_T, 0, comm);
  if (rc != MPI_SUCCESS) return rc;
  // Rank 0 numbers the nodes in order of their first rank.
  std::vector<int> node_of(hashes.size());
  std::unordered_map<uint64_t, int> node_of_host;
  for (size_t r = 0; r < hashes.size(); ++r) {
    node_of[r] = node_of_host.emplace(hashes[r], static_cast<int>(node_of_host.size()))
                     .first->second;
  }
  if (rank == 0) DescribeLayout(node_of, context);
  return MPI_SUCCESS;
}

}  // namespace colltune::shim
