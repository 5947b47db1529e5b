// A derived datatype's dense twin: a type of the same size and type
// signature with no gaps (lower bound 0, extent = size), so that count
// elements of the twin are exactly the bytes MPI_Pack makes of count
// elements of the original. Handing MPI (packed buffer, count, twin) instead
// of (buffer, count, type) keeps the count, the type size and the signature,
// which is all other ranks' calls must match: a rank may take this path
// whatever the others do. Seed 003's packed mock-ups use it where a table's
// layout rule chose them on this rank alone, and MPI_BYTE where every rank
// runs them (ViewDense).
#ifndef COLLTUNE_SHIM_COLL_DENSE_TWIN_H_
#define COLLTUNE_SHIM_COLL_DENSE_TWIN_H_

#include <cstdint>

#include "shim/coll/datatype.h"
#include "shim/coll/env.h"
#include "shim/mpi/mpi.h"

namespace colltune::shim {

// The committed twin of `type`, built once and kept with the type (freed
// with it); `type` itself when it is dense; MPI_DATATYPE_NULL when it has no
// twin (a combiner colltune does not read, predefined pair types, counts
// beyond int). Not for the caller to free.
MPI_Datatype DenseTwinOf(MPI_Datatype type);

// Builds the twin of `type` (committed, owned by the caller), or
// MPI_DATATYPE_NULL. DenseTwinOf caches this.
MPI_Datatype BuildDenseTwin(MPI_Datatype type);

// One side of a call as MPI should see it.
struct DenseView {
  void* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool staged = false;  // buf is scratch holding packed bytes
};

// `count` elements of `type` at `user`, as a packed form hands them to MPI.
// When every rank runs the packed form (env.chosen_by_layout false), as
// count * size MPI_BYTEs: the user's buffer where the type is dense, else
// packed scratch. When only this rank chose it, with the user's count and
// signature: the user's buffer and type where the type is dense or has no
// twin, else packed scratch with the twin. Scratch (count * size bytes) comes
// from `carve`; with `pack` the data is packed into it (data going out).
// Counts beyond int are the caller's to rule out.
int ViewDense(const void* user, int64_t count, MPI_Datatype type, const Layout& layout,
              const CollEnv& env, bool pack, Carver& carve, DenseView* view);

// The same for a count of p blocks of `block` elements: `view->count` is per block.
int ViewDenseBlocks(const void* user, int block, int p, MPI_Datatype type,
                    const Layout& layout, const CollEnv& env, bool pack, Carver& carve,
                    DenseView* view);

// Scratch ViewDense takes for `count` elements of `type` (0 when none).
uint64_t DenseViewBytes(int64_t count, const Layout& layout);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_DENSE_TWIN_H_
