// How an algorithm plugs into the shim, and how a call runs one.
//
// An algorithm is two functions. `need` decides, from rank-invariant values
// only, whether the algorithm can run this call and how much scratch memory
// it may need on any rank; compared with the budget, this gives every rank the
// same verdict, so all ranks fall back together. `run` does the work, calling
// PMPI only, and takes what it actually needs (at most that bound) from
// env.scratch.
#ifndef COLLTUNE_SHIM_COLL_ALGORITHM_H_
#define COLLTUNE_SHIM_COLL_ALGORITHM_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "common/catalog.h"
#include "common/quirks.h"
#include "shim/coll/calls.h"
#include "shim/coll/datatype_class.h"
#include "shim/coll/env.h"
#include "shim/coll/quirks.h"
#include "shim/native/native.h"

namespace colltune::shim {

template <class Call>
struct AlgorithmImpl {
  Algorithm id;
  // Most scratch bytes any rank may use for this call, or nullopt if the
  // algorithm cannot run it.
  std::optional<uint64_t> (*need)(const Call& call, const CollEnv& env);
  // Returns the MPI error code. The verdict to run was the same on every
  // rank, so a failed scratch allocation is returned as MPI_ERR_NO_MEM rather
  // than answered with a fallback on this rank alone.
  int (*run)(const Call& call, const CollEnv& env);
  // What runs where `need` says no: the next candidate of the same family
  // (a multi-lane mock-up on an irregular layout runs node by node), or
  // default. Its own `need` decides in turn, so the chain stays
  // rank-consistent.
  Algorithm then = Algorithm::kDefault;
};

// The mock-ups' implementations by id (shim/coll/registry.cc, from
// common/mockups.def): entry i is an AlgorithmImpl of the call type of
// algorithm i's collective.
extern const void* const kMockupImpls[];

// The mock-ups of one collective, defined in shim/coll/<collective>/.
// Find() returns null for kDefault, native algorithms and the algorithms of
// other collectives.
template <class Call>
struct Algorithms {
  static const AlgorithmImpl<Call>* Find(Algorithm id) {
    const int i = IndexOf(id);
    if (i <= 0 || i >= IndexOf(Algorithm::kFirstNative) ||
        InfoOf(id).collective != Call::kCollective) {
      return nullptr;
    }
    return static_cast<const AlgorithmImpl<Call>*>(kMockupImpls[i]);
  }
};

// For rooted collectives: MPI requires the same root on every rank, so this
// is a rank-invariant test. An out-of-range root makes a mock-up ineligible,
// so that the library's own collective reports the error (a mock-up such as
// Reduce-as-Allreduce would otherwise succeed and swallow it).
inline bool RootInRange(int root, const CollEnv& env) {
  return root >= 0 && root < env.size;
}

enum class Outcome {
  kDefault,     // the library's own implementation ran, as chosen
  kRan,         // the chosen algorithm ran
  kIneligible,  // the chosen algorithm cannot run this call; its `then`
                // chain's first eligible algorithm, or default, ran
};

// A call that moves no data (its message-size key is 0 bytes, the same on
// every rank) always runs the library's own collective: no composition does
// nothing faster, and libraries differ in which pointers they accept for
// empty buffers (NULL, two equal ones), so a mock-up's inner calls could
// raise an error the library's collective would not. Collectives keyed on
// no size (SizeKey::kNone) are not judged by it: a Barrier moves nothing and
// must still run, and the mock-ups of Gatherv or Alltoallv handle empty
// blocks themselves.
template <class Call>
bool MovesNothing(const Call& call, const CollEnv& env) {
  return InfoOf(Call::kCollective).key != SizeKey::kNone && call.KeyBytes(env) == 0;
}

// True for call types with an `op` member (the reductions).
template <class Call>
auto HasOp(const Call& c) -> decltype(c.op, std::true_type{});
std::false_type HasOp(...);

// True for call types with a `root` member, and a `sendbuf` member.
template <class Call>
auto HasRoot(const Call& c) -> decltype(c.root, std::true_type{});
std::false_type HasRoot(...);
template <class Call>
auto HasSendbuf(const Call& c) -> decltype(c.sendbuf, std::true_type{});
std::false_type HasSendbuf(...);

// Which of the QuirkForm bits `asked` (common/quirks.h) `call` has; the same
// on every rank. A rooted collective is in place at its root only, which the
// other ranks cannot see: there an in-place quirk covers every call.
template <class Call>
uint8_t FormOf(const Call& call, const CollEnv& env, uint8_t asked) {
  uint8_t form = asked & kFormAny;
  if (asked & kFormInPlace) {
    if constexpr (std::is_same_v<decltype(HasRoot(call)), std::true_type>) {
      form |= kFormInPlace;
    } else if constexpr (std::is_same_v<decltype(HasSendbuf(call)), std::true_type>) {
      if (call.sendbuf == MPI_IN_PLACE) form |= kFormInPlace;
    }
  }
  if ((asked & kFormSizeNotPowerOfTwo) && (env.size & (env.size - 1)) != 0) {
    form |= kFormSizeNotPowerOfTwo;
  }
  if constexpr (std::is_same_v<decltype(HasOp(call)), std::true_type>) {
    int commutes = 1;
    if ((asked & kFormNonCommutative) &&
        (PMPI_Op_commutative(call.op, &commutes) != MPI_SUCCESS || !commutes)) {
      form |= kFormNonCommutative;
    }
    if ((asked & kFormGappedType) && HasGaps(call.datatype)) form |= kFormGappedType;
    if ((asked & kFormShiftedType) && HasShiftedData(call.datatype)) form |= kFormShiftedType;
  }
  if (asked & kFormMixedTypes) {
    if (MixesBasicTypes(DataTypeOf(call, env.rank))) form |= kFormMixedTypes;
  }
  if constexpr (std::is_same_v<Call, ReduceScatterCall>) {
    for (int i = 1; (asked & kFormUnequalCounts) && i < env.size; ++i) {
      if (call.recvcounts[i] != call.recvcounts[0]) {
        form |= kFormUnequalCounts;
        break;
      }
    }
  }
  return form;
}

// Whether the library's own algorithm `id` can run `call` (rank-invariant:
// the same library, the same table, the same op on every rank).
template <class Call>
bool NativeEligible(Algorithm id, const Call& call, const CollEnv& env) {
  if (env.natives == nullptr || !env.natives->Runnable(id, env.native_comms, env.size)) {
    return false;
  }
  // A forced segment size is a choice for messages of two segments or more
  // (the same bytes on every rank: the same signature).
  const uint32_t segment = env.natives->SegmentOf(id);
  if (segment != 0 && call.KeyBytes(env) < 2 * static_cast<int64_t>(segment)) return false;
  const uint8_t quirks = env.natives->QuirkForms(id);
  return quirks == 0 || FormOf(call, env, quirks) == 0;
}

// `call` itself on `shadow`, the user's communicator's shadow with a native
// algorithm forced. The shadow returns errors; the user's communicator's
// handler judges them.
template <class Call>
__attribute__((always_inline)) inline int RunOnShadow(const Call& call, const CollEnv& env,
                                                      MPI_Comm shadow) {
  const int rc = call.Native(shadow);
  if (rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(env.comm, rc);
  return rc;
}

template <class Call>
int RunNative(Algorithm id, const Call& call, const CollEnv& env, bool* forced) {
  // The common case, a shadow made by an earlier call: the call itself on it.
  if (const MPI_Comm shadow = env.natives->ShadowOf(id, env.native_comms);
      shadow != MPI_COMM_NULL) {
    *forced = true;
    return RunOnShadow(call, env, shadow);
  }
  return env.natives->Run(
      id, env.comm, env.native_comms,
      [](const void* c, MPI_Comm comm) { return static_cast<const Call*>(c)->Native(comm); },
      &call, forced);
}

// Whether `id` can run `call` within the budget (default always can).
template <class Call>
bool Eligible(Algorithm id, const Call& call, const CollEnv& env) {
  if (id == Algorithm::kDefault) return true;
  if (MovesNothing(call, env)) return false;
  if (IsNative(id)) return NativeEligible(id, call, env);
  const AlgorithmImpl<Call>* impl = Algorithms<Call>::Find(id);
  if (impl == nullptr) return false;
  std::optional<uint64_t> need = impl->need(call, env);
  return need && *need <= env.mem_budget;
}

// The mock-up `id` or the first eligible one of its `then` chain, else the
// library's implementation (Execute's part for mock-ups).
template <class Call>
__attribute__((noinline)) int ExecuteMockup(Algorithm id, const Call& call,
                                            const CollEnv& env, Outcome* outcome,
                                            Algorithm* ran) {
  // A chain is at most a few links long; the bound only guards a cycle.
  Algorithm next = id;
  for (int link = 0; link < 4 && next != Algorithm::kDefault; ++link) {
    const AlgorithmImpl<Call>* impl = Algorithms<Call>::Find(next);
    if (impl == nullptr) break;
    std::optional<uint64_t> need = impl->need(call, env);
    if (need && *need <= env.mem_budget) {
      *outcome = next == id ? Outcome::kRan : Outcome::kIneligible;
      if (ran != nullptr) *ran = next;
      return impl->run(call, env);
    }
    next = impl->then;
  }
  *outcome = Outcome::kIneligible;
  return call.Native(env.comm);
}

// Execute's part for the library's own algorithms that need checking or a
// shadow made (collective: every rank comes here for the same call).
template <class Call>
__attribute__((noinline)) int ExecuteNative(Algorithm id, const Call& call,
                                            const CollEnv& env, Outcome* outcome,
                                            Algorithm* ran) {
  if (!NativeEligible(id, call, env)) {
    *outcome = Outcome::kIneligible;
    return call.Native(env.comm);
  }
  bool forced = false;
  const int rc = RunNative(id, call, env, &forced);
  *outcome = forced ? Outcome::kRan : Outcome::kIneligible;
  if (forced && ran != nullptr) *ran = id;
  return rc;
}

// Runs `call` with algorithm `id`, or, if `id` cannot run this call, with the
// first eligible algorithm of its `then` chain, else the library's
// implementation. *ran (if given) says which ran. Returns the MPI error code.
// Inline and small: default, and a native algorithm whose shadow exists,
// cost no call frame of their own; the rest is out of line.
template <class Call>
__attribute__((always_inline)) inline int Execute(Algorithm id, const Call& call,
                                                 const CollEnv& env, Outcome* outcome,
                                                 Algorithm* ran = nullptr) {
  if (ran != nullptr) *ran = Algorithm::kDefault;
  if (id == Algorithm::kDefault || MovesNothing(call, env)) {
    *outcome = Outcome::kDefault;
    return call.Native(env.comm);
  }
  if (!IsNative(id)) return ExecuteMockup(id, call, env, outcome, ran);
  // The common case, a native algorithm with nothing to check per call whose
  // shadow an earlier call made: the call itself on it (NativeEligible's
  // tests are answered by the shadow's existence).
  if (env.natives != nullptr) {
    if (const MPI_Comm shadow = env.natives->UncheckedShadowOf(id, env.native_comms);
        shadow != MPI_COMM_NULL) {
      *outcome = Outcome::kRan;
      if (ran != nullptr) *ran = id;
      return RunOnShadow(call, env, shadow);
    }
  }
  return ExecuteNative(id, call, env, outcome, ran);
}

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_ALGORITHM_H_
