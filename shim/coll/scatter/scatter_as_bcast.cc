// GL21: MPI_Scatter(n) as MPI_Bcast of all p blocks; each rank keeps its own.
//
// The blocks travel as packed bytes (MPI_BYTE), since the other ranks' send
// arguments are not significant and datatypes may differ between ranks: the
// root broadcasts its send buffer directly when its type is dense, else a
// packed copy; the other ranks receive into scratch and unpack their block.
// The root copies its own block between its two datatypes, unless it
// scatters in place. Scratch bound for every rank: p * n bytes.
//
// Cost: MPI_Bcast(p*n bytes); scratch: p*n bytes (none at a root whose send
//   type is dense).
#include "shim/coll/blocks.h"
#include "shim/coll/mockups.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const ScatterCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!RootedBlocksFit(c, env)) return std::nullopt;
  return AlignUp(static_cast<uint64_t>(bytes) * env.size);
}

int Run(const ScatterCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  const int64_t total = bytes * env.size;
  const bool is_root = env.rank == c.root;
  Layout send;
  int rc;
  if (is_root && (rc = GetLayout(c.sendtype, &send)) != MPI_SUCCESS) return rc;
  const bool direct = is_root && send.dense;
  ScratchPool::Lease lease = env.scratch->Acquire(direct ? 0 : total);
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  char* all = direct ? static_cast<char*>(const_cast<void*>(c.sendbuf))
                     : static_cast<char*>(lease.data());
  if (is_root && !direct) {
    rc = PackBytes(c.sendbuf, static_cast<int64_t>(c.sendcount) * env.size,
                   c.sendtype, send, all);
    if (rc != MPI_SUCCESS) return rc;
  }
  rc = PMPI_Bcast(all, static_cast<int>(total), MPI_BYTE, c.root, env.comm);
  if (rc != MPI_SUCCESS || (is_root && c.recvbuf == MPI_IN_PLACE)) return rc;
  Layout recv;
  if ((rc = GetLayout(c.recvtype, &recv)) != MPI_SUCCESS) return rc;
  return UnpackBytes(all + env.rank * bytes, c.recvbuf, c.recvcount, c.recvtype,
                     recv);
}

}  // namespace

const AlgorithmImpl<ScatterCall> kScatterAsBcast = {Algorithm::kScatterAsBcast,
                                                    Need, Run};

}  // namespace colltune::shim
