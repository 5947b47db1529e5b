#include "shim/runtime/context.h"

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
  MPI_Comm node;
  rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &node);
  if (rc != MPI_SUCCESS) return rc;
  int node_rank = 0, node_size = 0;
  PMPI_Comm_rank(node, &node_rank);
  PMPI_Comm_size(node, &node_size);
  PMPI_Comm_free(&node);
  // Column 0 counts nodes (one leader each), column 1 finds the fullest.
  int mine[2] = {node_rank == 0 ? 1 : 0, node_size};
  int nodes = 0, ppn = 0;
  rc = PMPI_Reduce(&mine[0], &nodes, 1, MPI_INT, MPI_SUM, 0, comm);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Reduce(&mine[1], &ppn, 1, MPI_INT, MPI_MAX, 0, comm);
  if (rc != MPI_SUCCESS) return rc;
  context->nodes = nodes;
  context->ppn = ppn;
  return MPI_SUCCESS;
}

}  // namespace colltune::shim
