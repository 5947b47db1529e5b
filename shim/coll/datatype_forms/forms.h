// Seed 003's datatype forms that only redescribe a call's data: the same
// call with each (count, datatype) MPI reads on this rank described another
// way with the same type map (redescribed.cc). Because
// the type map stays, a rank may take such a form whatever the others do.
#ifndef COLLTUNE_SHIM_COLL_DATATYPE_FORMS_FORMS_H_
#define COLLTUNE_SHIM_COLL_DATATYPE_FORMS_FORMS_H_

#include <cstdint>
#include <optional>
#include <type_traits>

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::shim::forms {

// Calls f(count, type) on each (count, datatype) of `c` that MPI reads on
// this rank: a non-root's receive side of a gather, the root's own block
// with MPI_IN_PLACE and the send side of an in-place all-gather or
// all-to-all may hold anything, and are left alone. `count` is null where
// the counts are an array (the v-variants).
template <class Call, class F>
void ForEachType(Call& c, const CollEnv& env, F f) {
  constexpr bool rooted_gather =
      std::is_same_v<Call, GatherCall> || std::is_same_v<Call, GathervCall>;
  constexpr bool rooted_scatter =
      std::is_same_v<Call, ScatterCall> || std::is_same_v<Call, ScattervCall>;
  if constexpr (std::is_same_v<Call, BcastCall>) {
    f(&c.count, &c.datatype);
  } else if constexpr (rooted_gather) {
    const bool root = env.rank == c.root;
    if (!(root && c.sendbuf == MPI_IN_PLACE)) f(&c.sendcount, &c.sendtype);
    if constexpr (std::is_same_v<Call, GatherCall>) {
      if (root) f(&c.recvcount, &c.recvtype);
    } else {
      if (root) f(nullptr, &c.recvtype);
    }
  } else if constexpr (rooted_scatter) {
    const bool root = env.rank == c.root;
    if constexpr (std::is_same_v<Call, ScatterCall>) {
      if (root) f(&c.sendcount, &c.sendtype);
    } else {
      if (root) f(nullptr, &c.sendtype);
    }
    if (!(root && c.recvbuf == MPI_IN_PLACE)) f(&c.recvcount, &c.recvtype);
  } else if constexpr (std::is_same_v<Call, AllgatherCall> ||
                       std::is_same_v<Call, AlltoallCall>) {
    if (c.sendbuf != MPI_IN_PLACE) f(&c.sendcount, &c.sendtype);
    f(&c.recvcount, &c.recvtype);
  } else if constexpr (std::is_same_v<Call, AllgathervCall>) {
    if (c.sendbuf != MPI_IN_PLACE) f(&c.sendcount, &c.sendtype);
    f(nullptr, &c.recvtype);
  } else {
    static_assert(std::is_same_v<Call, AlltoallvCall>, "a call with datatype forms");
    if (c.sendbuf != MPI_IN_PLACE) f(nullptr, &c.sendtype);
    f(nullptr, &c.recvtype);
  }
}

// No scratch; a rooted call needs its root in range.
template <class Call>
std::optional<uint64_t> NeedNothing(const Call& c, const CollEnv& env) {
  if constexpr (std::is_same_v<Call, BcastCall> || std::is_same_v<Call, GatherCall> ||
                std::is_same_v<Call, GathervCall> || std::is_same_v<Call, ScatterCall> ||
                std::is_same_v<Call, ScattervCall>) {
    if (!RootInRange(c.root, env)) return std::nullopt;
  }
  return 0;
}

// The library's collective with every datatype MPI reads redescribed by
// `redescribe(count, type)`.
template <class Call, class F>
int Redescribed(const Call& c, const CollEnv& env, F redescribe) {
  Call n = c;
  ForEachType(n, env, redescribe);
  return n.Native(env.comm);
}

}  // namespace colltune::shim::forms

#endif  // COLLTUNE_SHIM_COLL_DATATYPE_FORMS_FORMS_H_
