// Seed 003's forms that redescribe a call's data with the same type map, so
// that each rank may take them on its own (a table's layout rule):
//
// - GL4, <collective>_as_normalized: each datatype replaced by its normal
//   form (shim/coll/normal_form.h), the type map described flat;
//   predefined and already flat types pass as they are.
// - GL1, <collective>_as_contiguous: each count of a derived datatype passed
//   as one element of MPI_Type_contiguous(count, type)
//   (shim/coll/whole_type.h); per block for the rooted and all-to-all
//   collectives, so blocks stay their counts' extents apart; predefined and
//   dense types, and counts below 2, pass as they are.
//
// Cost: the library's collective with the new descriptions, each built once
// per type (and count). Scratch: none.
#include "shim/coll/datatype_forms/forms.h"
#include "shim/coll/mockups.h"
#include "shim/coll/normal_form.h"
#include "shim/coll/whole_type.h"

namespace colltune::shim {
namespace {

template <class Call>
int Normalized(const Call& c, const CollEnv& env) {
  return forms::Redescribed(c, env, [](int*, MPI_Datatype* type) {
    *type = NormalFormOf(*type);
  });
}

template <class Call>
int Contiguous(const Call& c, const CollEnv& env) {
  return forms::Redescribed(c, env, [](int* count, MPI_Datatype* type) {
    if (count != nullptr) UseWhole(count, type);
  });
}

}  // namespace

#define COLLTUNE_FORM(collective, form)                                    \
  const AlgorithmImpl<collective##Call> k##collective##As##form = {       \
      Algorithm::k##collective##As##form, forms::NeedNothing<collective##Call>, \
      form<collective##Call>};
COLLTUNE_FORM(Bcast, Normalized)
COLLTUNE_FORM(Allgather, Normalized)
COLLTUNE_FORM(Gather, Normalized)
COLLTUNE_FORM(Scatter, Normalized)
COLLTUNE_FORM(Alltoall, Normalized)
COLLTUNE_FORM(Gatherv, Normalized)
COLLTUNE_FORM(Scatterv, Normalized)
COLLTUNE_FORM(Allgatherv, Normalized)
COLLTUNE_FORM(Alltoallv, Normalized)
COLLTUNE_FORM(Bcast, Contiguous)
COLLTUNE_FORM(Allgather, Contiguous)
COLLTUNE_FORM(Gather, Contiguous)
COLLTUNE_FORM(Scatter, Contiguous)
COLLTUNE_FORM(Alltoall, Contiguous)
#undef COLLTUNE_FORM

}  // namespace colltune::shim
