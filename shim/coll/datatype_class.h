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

#include "common/layout_class.h"
#include "shim/mpi/mpi.h"

namespace colltune::shim {

struct DatatypeClass {
  LayoutClass layout = LayoutClass::kOther;
  // log2 of the smallest contiguous block in bytes (the smallest block of the
  // type's innermost level), 0 for contiguous types.
  uint8_t block_log2 = 0;
  // One basic type in the whole signature (MPI_INT blocks, not int+double).
  bool homogeneous = false;

  // What a table rule is keyed on.
  LayoutKey Key() const { return LayoutKey{layout, static_cast<int8_t>(block_log2)}; }
  // The signature mixes basic types, and the shim reads the type (not
  // kOther): the same answer on every rank of a call.
  bool Mixed() const { return !homogeneous && layout != LayoutClass::kOther; }
};

// The class of `type`; kOther for a type MPI cannot describe (an invalid
// handle: the library's own call then reports the error).
DatatypeClass ClassOf(MPI_Datatype type);

// Whether `type`'s signature mixes basic types: a struct of int and double,
// with gaps or not, and the predefined pairs of different types
// (MPI_DOUBLE_INT). Signatures match between ranks, so every rank answers
// the same. Cached with the class (ClassOf).
bool MixesBasicTypes(MPI_Datatype type);

// E.g. "tiled/8B" (blocks of 8 to 15 bytes), "contiguous".
std::string Describe(const DatatypeClass& c);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_DATATYPE_CLASS_H_
