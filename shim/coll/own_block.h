// A rank's own block of a gathering or scattering call, as several mock-ups
// of the same collective need it.
#ifndef COLLTUNE_SHIM_COLL_OWN_BLOCK_H_
#define COLLTUNE_SHIM_COLL_OWN_BLOCK_H_

#include <cstdint>

#include "shim/coll/calls.h"
#include "shim/coll/datatype.h"
#include "shim/coll/env.h"

namespace colltune::shim {

// This rank's contribution: its send buffer, or with MPI_IN_PLACE its own
// block of the receive buffer.
Block OwnBlock(const AllgatherCall& c, int rank);
// The same, the in-place block being recvcounts[rank] elements at
// displs[rank].
Block OwnBlock(const AllgathervCall& c, int rank);
// This rank's contribution: its send buffer, or at a root using MPI_IN_PLACE
// its own block of the receive buffer.
Block OwnBlock(const GatherCall& c, int rank);
// This rank's block: its send buffer, or at a root using MPI_IN_PLACE
// nothing to move (buf null).
Block OwnBlock(const GathervCall& c, int rank);
// Where this rank's block goes: its receive buffer, or at a root using
// MPI_IN_PLACE nowhere (buf null).
Block OwnBlock(const ScattervCall& c, int rank);

// This rank's block size in bytes (at an in-place root, its receive block).
int64_t OwnBytes(const GathervCall& c, int rank);
// This rank's block size in bytes (at an in-place root, its send block).
int64_t OwnBytes(const ScattervCall& c, int rank);

// Unpacks p blocks gathered as packed bytes into the call's receive buffer
// (p x recvcount elements of recvtype, whose layout is `recv`).
int UnpackGathered(const void* bytes, const AllgatherCall& c, int p, const Layout& recv);
int UnpackGathered(const void* bytes, const GatherCall& c, int p, const Layout& recv);

// The largest block in bytes over every rank's OwnBytes (one MPI_Allreduce),
// the same on every rank. MPI_ERR_TYPE where this rank's type is invalid.
int LargestOwnBytes(const GathervCall& c, const CollEnv& env, int64_t* largest);
int LargestOwnBytes(const ScattervCall& c, const CollEnv& env, int64_t* largest);

// The largest block of an MPI_Allgatherv in bytes (every rank holds all
// counts, so the same on every rank), or -1 if a count is negative or the
// type invalid.
int64_t LargestBlockBytes(const AllgathervCall& c, int p);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_OWN_BLOCK_H_
