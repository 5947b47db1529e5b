// How a derived datatype was built (MPI_Type_get_envelope and
// MPI_Type_get_contents), read once by the classifier and the dense twin.
#ifndef COLLTUNE_SHIM_COLL_TYPE_CONTENTS_H_
#define COLLTUNE_SHIM_COLL_TYPE_CONTENTS_H_

#include <vector>

#include "shim/mpi/mpi.h"

namespace colltune::shim {

// Holds the inner handles MPI_Type_get_contents hands out and frees the
// derived ones with itself.
class TypeContents {
 public:
  // Reads `type`; false if MPI cannot describe it. A predefined type reads
  // as MPI_COMBINER_NAMED with nothing else.
  bool Read(MPI_Datatype type);
  ~TypeContents();

  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> addresses;
  std::vector<MPI_Datatype> types;
};

// True for predefined (named) datatypes.
bool IsNamed(MPI_Datatype type);

// A datatype keyval (MPI_KEYVAL_INVALID if MPI refuses) whose attributes
// MPI_Type_dup does not copy and `remove` deletes.
int NewTypeKeyval(MPI_Type_delete_attr_function* remove);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_TYPE_CONTENTS_H_
