// What an algorithm may use besides its call's arguments.
#ifndef COLLTUNE_SHIM_COLL_ENV_H_
#define COLLTUNE_SHIM_COLL_ENV_H_

#include <cstdint>

#include "shim/coll/node_layout.h"
#include "shim/coll/scratch.h"
#include "shim/mpi/mpi.h"

namespace colltune::shim {

class NativeAlgorithms;
class NativeComms;

struct CollEnv {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  // An inter-communicator: only the library's collectives run on it, and
  // count arrays are sized by the remote group, not `size`.
  bool inter = false;
  // Largest scratch need a call may have (COLLTUNE_MEM_BYTES, as broadcast by
  // rank 0, so every rank compares against the same number).
  uint64_t mem_budget = 0;
  ScratchPool* scratch = nullptr;
  // A private duplicate of `comm` for algorithms built on point-to-point
  // messages (a user's wildcard receives must never match them), created on
  // the first such call by every rank alike and freed with `comm`. Null when
  // the communicator has no state to keep it in.
  MPI_Comm* p2p = nullptr;
  // How the communicator's processes sit on nodes, with its node, leader and
  // lane communicators (shim/coll/node_layout.h), built on the first call
  // that asks by every rank alike and freed with `comm`. Null when the
  // communicator has no state to keep it in.
  NodeLayout* nodes = nullptr;
  // The library's own algorithms (shim/native/native.h): what it offers, and
  // this communicator's shadows. Null: no native algorithm can run.
  const NativeAlgorithms* natives = nullptr;
  NativeComms* native_comms = nullptr;
  // This rank alone chose the algorithm, from its own datatype (a table's
  // layout rule): other ranks may run the library's collective, so the call
  // must keep the user's type signature (shim/coll/dense_twin.h).
  bool chosen_by_layout = false;
};

// The private duplicate of env.comm (collective over it on first use).
inline int P2PComm(const CollEnv& env, MPI_Comm* out) {
  if (env.p2p == nullptr) return MPI_ERR_COMM;
  if (*env.p2p == MPI_COMM_NULL) {
    const int rc = PMPI_Comm_dup(env.comm, env.p2p);
    if (rc != MPI_SUCCESS) return rc;
  }
  *out = *env.p2p;
  return MPI_SUCCESS;
}

// The node layout of env.comm (collective over it on first use), or null
// (on every rank alike) if it cannot be had.
inline const NodeLayout* Nodes(const CollEnv& env) {
  if (env.nodes == nullptr || env.inter || !env.nodes->Ensure(env.comm)) return nullptr;
  return env.nodes;
}

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_ENV_H_
