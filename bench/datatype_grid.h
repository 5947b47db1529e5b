// Seed 003's datatype layouts as campaign points: for the collectives with
// datatype forms (bcast, allgather, gather, scatter, alltoall, the
// v-variants), a campaign can time them with the data described by a
// derived datatype of each layout, at each block size. The layouts are the
// seed's: tiled (equal blocks at a constant stride), indexed (blocks at
// listed displacements), nested (strided blocks of strided blocks) and a
// heterogeneous struct; each spec builds one type whose class (shim/coll/
// datatype_class.h) is the point's key, so the daemon's rule names exactly
// what the shim finds on a program's type.
#ifndef COLLTUNE_BENCH_DATATYPE_GRID_H_
#define COLLTUNE_BENCH_DATATYPE_GRID_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <mpi.h>

#include "common/catalog.h"
#include "common/layout_class.h"

namespace colltune::bench {

struct DatatypeSpec {
  LayoutClass layout = LayoutClass::kTiled;  // tiled, indexed, nested or struct
  // Ints per contiguous block; for struct, {int, double} pairs per element.
  int block = 2;
};

// "tiled:2", "indexed:100", "nested:10", "struct:8"; nullopt otherwise (a
// block outside 1..100000).
std::optional<DatatypeSpec> ParseDatatypeSpec(std::string_view text);
std::string SpecName(const DatatypeSpec& spec);

// `--datatypes grid`: every layout at blocks of 2 to 1000 ints (seed 003's
// range), one struct.
std::vector<std::string> DatatypeGridNames();

// A committed type of the spec's layout and the count of it that holds
// `bytes` of data, rounded down to whole elements (at least one). Collective
// on nothing; the caller frees the type.
MPI_Datatype MakeDatatype(const DatatypeSpec& spec, int64_t bytes, int* count);

// False where the library's own call of `c` aborts on data of the spec's
// layout at some root or process count (shim/coll/quirks.h: MPICH's
// MPI_Gather and MPI_Scatter on types mixing basic types): a
// campaign cannot time the default there, and a job's calls of that kind run
// the shim's repair (shim/runtime/repairs.h), not a table's choice.
bool LibraryRunsLayout(Collective c, const DatatypeSpec& spec);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_DATATYPE_GRID_H_
