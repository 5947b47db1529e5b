// Every mock-up's implementation, declared from common/mockups.def: each
// row's k<Id> is defined in shim/coll/<collective>/<name>.cc as
//   const AlgorithmImpl<<Collective>Call> k<Id> = {Algorithm::k<Id>, Need, Run};
// (seed 003's forms that only redescribe the data, the same for every
// collective, one file per family: shim/coll/datatype_forms/).
// registry.cc makes Algorithms<Call>::Find find them.
#ifndef COLLTUNE_SHIM_COLL_MOCKUPS_H_
#define COLLTUNE_SHIM_COLL_MOCKUPS_H_

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim {

#define COLLTUNE_MOCKUP(id, collective, name, guideline, what) \
  extern const AlgorithmImpl<collective##Call> k##id;
#include "common/mockups.def"
#undef COLLTUNE_MOCKUP

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_MOCKUPS_H_
