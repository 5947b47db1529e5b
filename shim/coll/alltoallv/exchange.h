// What the mock-ups of MPI_Alltoallv and MPI_Alltoallw share: one side
// (send or receive) of a call as p blocks, the checks of the counts and
// displacements MPI forbids, and the pairwise exchange over point-to-point
// messages.
#ifndef COLLTUNE_SHIM_COLL_ALLTOALLV_EXCHANGE_H_
#define COLLTUNE_SHIM_COLL_ALLTOALLV_EXCHANGE_H_

#include <cstdint>

#include "shim/coll/calls.h"
#include "shim/coll/datatype.h"
#include "shim/coll/env.h"
#include "shim/mpi/mpi.h"

namespace colltune::shim::a2a {

// Tags on the private point-to-point communicator (seed 000's trees use 1
// and 2 there).
inline constexpr int kAlltoallvTag = 3;
inline constexpr int kAlltoallwTag = 4;
inline constexpr int kBarrierTag = 5;

// Block j of one side: `counts[j]` elements of Type(j) at At(j).
// Alltoallv: one type, displacements in units of its extent; Alltoallw: a
// type per block, displacements in bytes.
struct Side {
  char* buf = nullptr;
  const int* counts = nullptr;
  const int* displs = nullptr;
  MPI_Datatype type = MPI_DATATYPE_NULL;  // Alltoallv
  const MPI_Datatype* types = nullptr;    // Alltoallw (else null)
  MPI_Aint unit = 1;                      // bytes per displacement unit

  MPI_Datatype Type(int j) const { return types != nullptr ? types[j] : type; }
  char* At(int j) const { return buf + static_cast<MPI_Aint>(displs[j]) * unit; }
};

// The sides of a call. With MPI_IN_PLACE the send side is the receive side
// (MPI ignores sendcounts, sdispls and the send types then). Returns the MPI
// error code of a datatype query (MPI_ERR_TYPE for an invalid type).
int SidesOf(const AlltoallvCall& c, Side* send, Side* recv);
int SidesOf(const AlltoallwCall& c, Side* send, Side* recv);

// What MPI forbids in one side, seen locally: MPI_ERR_COUNT for a negative
// count, MPI_ERR_TYPE for an invalid datatype, MPI_ERR_BUFFER when two
// non-empty blocks' spans (true lower bound to true upper bound) overlap
// (checked only if `spans`, SpanScratch(p) bytes of scratch, is given: a
// receive side).
// The span test is conservative: interleaved non-contiguous blocks that
// MPI allows are reported too, which only makes a mock-up fall back to the
// library's collective. *max_bytes: the largest block in bytes.
int CheckSide(const Side& s, int p, void* spans, int64_t* max_bytes);
inline uint64_t SpanScratch(int p) { return AlignUp(16 * static_cast<uint64_t>(p)); }

// The pairwise exchange on `comm` (a private duplicate): the own block
// copied locally, then p-1 rounds of MPI_Sendrecv, in round k to rank+k and
// from rank-k; in place, p rounds of MPI_Sendrecv_replace with partner
// (k - rank) mod p. Empty blocks are neither sent nor received (MPI's
// type-signature rule makes both ends agree that they are empty).
int Pairwise(const Side& send, const Side& recv, bool in_place, int rank, int p,
             MPI_Comm comm, int tag);

// The library's answer to arguments it checks on entry (negative counts,
// invalid datatypes): the communicator's error handler is called with `rc`
// and `rc` returned, with no message sent, as MPI libraries do.
int LocalError(MPI_Comm comm, int rc);

}  // namespace colltune::shim::a2a

#endif  // COLLTUNE_SHIM_COLL_ALLTOALLV_EXCHANGE_H_
