// What a datatype's memory layout is, in seed 003's terms: the key a
// datatype-aware decision needs beside the collective and the message size.
// Found once per committed type from its constructor tree and kept on the
// type (an MPI attribute), so it costs one attribute lookup afterwards and
// dies with the type: a freed handle that MPI hands out again is classified
// anew. Predefined types answer without any MPI call.
#ifndef COLLTUNE_SHIM_COLL_DATATYPE_CLASS_H_
#define COLLTUNE_SHIM_COLL_DATATYPE_CLASS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "shim/mpi/mpi.h"

namespace colltune::shim {

enum class LayoutClass : uint8_t {
  kContiguous,  // no gaps: predefined, contiguous, or any type whose elements
                // are size bytes apart with nothing between
  kTiled,       // equal blocks at a constant stride, one level (vector,
                // hvector, a block resized to a larger extent)
  kIndexed,     // blocks at listed displacements (indexed, hindexed, indexed
                // block, a struct of one basic type)
  kStruct,      // several basic types (a heterogeneous struct)
  kNested,      // strided blocks of strided blocks (vector of vectors,
                // subarrays of two or more dimensions)
  kOther,       // none of these, or a type built on absolute addresses (its
                // meaning depends on MPI_BOTTOM): never changed by colltune
};
inline constexpr int kNumLayoutClasses = 6;

struct DatatypeClass {
  LayoutClass layout = LayoutClass::kOther;
  // log2 of the typical contiguous block in bytes (the smallest block of the
  // type's innermost level), 0 for contiguous types.
  uint8_t block_log2 = 0;
  // One basic type in the whole signature (MPI_INT blocks, not int+double).
  bool homogeneous = false;
};

// The class of `type`; kOther for a type MPI cannot describe (an invalid
// handle: the library's own call then reports the error).
DatatypeClass ClassOf(MPI_Datatype type);

// "contiguous", "tiled", "indexed", "struct", "nested", "other".
std::string_view NameOf(LayoutClass layout);
// E.g. "tiled/8B" (blocks of 8 to 15 bytes), "contiguous".
std::string Describe(const DatatypeClass& c);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_DATATYPE_CLASS_H_
