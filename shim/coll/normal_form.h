// Seed 003's normal form of a derived datatype (its GL4): the same type map,
// lower bound and extent, described as flat as MPI allows. Libraries keep a
// type as the program built it (a vector of vectors stays two levels; a
// subarray, a struct of one basic type, an index list of adjacent blocks
// stay what they are), and seed 003 measures the same layout 2-4x slower
// through such descriptions than through the flat one. The normal form lists
// the type's contiguous blocks in type-map order, adjacent ones merged, as
// one vector when they are equal and equally spaced, else as one indexed
// list of the basic type (a struct where several basic types mix).
//
// The type map is the user's, so a rank may use the normal form in place of
// its type whatever the others do (the <collective>_as_normalized mock-ups).
#ifndef COLLTUNE_SHIM_COLL_NORMAL_FORM_H_
#define COLLTUNE_SHIM_COLL_NORMAL_FORM_H_

#include "shim/mpi/mpi.h"

namespace colltune::shim {

// The committed normal form of `type`, built once and kept with the type
// (freed with it); `type` itself when it is predefined, dense, already flat,
// or cannot be read (a combiner colltune does not read, more than
// kMaxNormalBlocks blocks an element, absolute addresses). Not for the
// caller to free.
MPI_Datatype NormalFormOf(MPI_Datatype type);

// Builds the normal form (committed, owned by the caller), or
// MPI_DATATYPE_NULL where NormalFormOf answers `type` itself.
MPI_Datatype BuildNormalForm(MPI_Datatype type);

inline constexpr int kMaxNormalBlocks = 4096;

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_NORMAL_FORM_H_
