// GL3: MPI_Allgather(n) as MPI_Allreduce(pn) with MPI_BOR: every rank zeroes
// a buffer of p blocks, puts its own block in place, and the bitwise OR
// assembles all blocks everywhere.
//
// The paper ORs the user's elements, which MPI defines for integer types
// only. Here the blocks are packed bytes and the operation runs on MPI_BYTE,
// for which MPI_BOR is defined and exact (x | 0 = x for every bit pattern),
// so the mock-up is correct for every datatype, floating point and derived
// included. A rank whose receive type is dense ORs in its receive buffer
// directly; others in p * n bytes of scratch (the bound for every rank).
//
// Cost: MPI_Allreduce(p*n bytes, MPI_BOR); scratch: none when the receive type
//   is dense, else p*n bytes.
#include <cstring>

#include "shim/coll/mockups.h"
#include "shim/coll/own_block.h"
#include "shim/coll/blocks.h"

namespace colltune::shim {
namespace {

std::optional<uint64_t> Need(const AllgatherCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  if (!FitsIntBlocks(bytes, env.size)) return std::nullopt;
  return AlignUp(static_cast<uint64_t>(bytes) * env.size);
}

int Run(const AllgatherCall& c, const CollEnv& env) {
  const int64_t bytes = c.KeyBytes(env);
  const int64_t total = bytes * env.size;
  Layout recv;
  int rc = GetLayout(c.recvtype, &recv);
  if (rc != MPI_SUCCESS) return rc;
  const bool direct = recv.dense;
  ScratchPool::Lease lease = env.scratch->Acquire(direct ? 0 : total);
  if (!lease.ok()) return MPI_ERR_NO_MEM;
  char* work = direct ? static_cast<char*>(c.recvbuf)
                      : static_cast<char*>(lease.data());
  char* mine = work + env.rank * bytes;
  // With MPI_IN_PLACE and a dense receive type the own block is in place.
  if (!(direct && c.sendbuf == MPI_IN_PLACE)) {
    rc = PackBlock(OwnBlock(c, env.rank), mine);
    if (rc != MPI_SUCCESS) return rc;
  }
  memset(work, 0, mine - work);
  memset(mine + bytes, 0, total - (mine + bytes - work));
  rc = PMPI_Allreduce(MPI_IN_PLACE, work, static_cast<int>(total), MPI_BYTE,
                      MPI_BOR, env.comm);
  if (rc != MPI_SUCCESS || direct) return rc;
  return UnpackGathered(work, c, env.size, recv);
}

}  // namespace

const AlgorithmImpl<AllgatherCall> kAllgatherAsAllreduce = {
    Algorithm::kAllgatherAsAllreduce, Need, Run};

}  // namespace colltune::shim
