#include "shim/coll/type_contents.h"

namespace colltune::shim {

bool IsNamed(MPI_Datatype type) {
  int ni = 0, na = 0, nd = 0, combiner = 0;
  return PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
         combiner == MPI_COMBINER_NAMED;
}

int NewTypeKeyval(MPI_Type_delete_attr_function* remove) {
  int keyval = MPI_KEYVAL_INVALID;
  PMPI_Type_create_keyval(&NoTypeCopy, remove, &keyval, nullptr);
  return keyval;
}

bool TypeContents::Read(MPI_Datatype type) {
  int ni = 0, na = 0, nd = 0;
  if (PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return false;
  if (combiner == MPI_COMBINER_NAMED) return true;
  ints.resize(ni);
  addresses.resize(na);
  types.resize(nd);
  if (PMPI_Type_get_contents(type, ni, na, nd, ints.data(), addresses.data(), types.data()) !=
      MPI_SUCCESS) {
    types.clear();
    return false;
  }
  return true;
}

TypeContents::~TypeContents() {
  for (MPI_Datatype& t : types) {
    if (!IsNamed(t)) PMPI_Type_free(&t);
  }
}

}  // namespace colltune::shim
