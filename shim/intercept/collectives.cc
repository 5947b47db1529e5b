// The intercepted collectives. Each wrapper packs its arguments into a call
// value and hands it to Dispatch, which either passes straight through to the
// library or runs the algorithm the table chose for this communicator and
// message size.
#include <vector>

#include "common/histogram.h"
#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"
#include "shim/intercept/api.h"
#include "shim/intercept/export.h"
#include "shim/runtime/clock.h"
#include "shim/runtime/observer.h"
#include "shim/runtime/repairs.h"
#include "shim/runtime/runtime.h"

namespace colltune::shim {
namespace {

// An event (observer.h): this call is timed, and may explore an eligible
// alternative to the table's choice. Every rank of the communicator takes
// the same decisions here: they depend on the call counter, the
// rank-invariant size key and the broadcast settings only.
template <class Call>
__attribute__((noinline)) int Event(Runtime* rt, CommState* s, const Call& call) {
  constexpr Collective c = Call::kCollective;
  const int64_t key = call.KeyBytes(s->env);
  const int bucket = histogram::BucketOf(key < 0 ? 0 : static_cast<uint64_t>(key));
  const CommObserver::EventPlan plan = s->observer->Plan(c, bucket);
  const Algorithm chosen = rt->Choose(*s, c, [&] { return key; });
  Algorithm run = chosen;
  if (plan.explore && s->intra && !rt->Forced(c)) {
    // Where the table changed the algorithm, every other burst explores
    // default, the first one included: the baseline the change is judged
    // against (one job's evidence can take it back, daemon/engine.h), so a
    // short job has it first. The others take turns.
    const std::vector<Algorithm>& others = Alternatives(c, chosen);
    const bool judge = chosen != Algorithm::kDefault && !others.empty() &&
                       others.front() == Algorithm::kDefault;
    if (judge && plan.ordinal % 2 == 1) {
      run = Algorithm::kDefault;
    } else {
      const size_t first = judge ? 1 : 0;
      const size_t n = others.size() - first;
      const uint64_t turn = judge ? plan.ordinal / 2 - 1 : plan.ordinal - 1;
      for (size_t i = 0; i < n; ++i) {
        const Algorithm a = others[first + (turn + i) % n];
        if (rt->FlatJob() && IsHierarchical(a)) continue;
        if (Eligible(a, call, s->env)) {
          run = a;
          break;
        }
      }
    }
  }
  rt->NoteDatatype(c, DataTypeOf(call, s->env.rank));
  // Layout rules apply where the table's choice runs and is default; such a
  // call is not timed: online evidence is about contiguous data.
  bool by_layout = false, shared = false;
  if (run == Algorithm::kDefault && chosen == Algorithm::kDefault) {
    run = rt->ChooseLayout(*s, c, DataTypeOf(call, s->env.rank), [&] { return key; }, &shared);
    by_layout = run != Algorithm::kDefault;
  }
  Outcome outcome = Outcome::kDefault;
  Algorithm ran = Algorithm::kDefault;
  CollEnv env = s->env;
  env.chosen_by_layout = by_layout && !shared;
  const uint64_t t0 = clock::Now();
  const int rc = Execute(run, call, env, &outcome, &ran);
  const uint64_t t1 = clock::Now();
  if (s->regimes) s->regimes->Done();
  if (run != Algorithm::kDefault) rt->Record(*s, c, run, outcome, ran);
  if (plan.time && !by_layout) {
    s->observer->Record(c, ran, bucket, clock::ElapsedNs(t0, t1), run != chosen);
  }
  rt->MaybeSnapshot();
  return rc;
}

// Where the table leaves the default: its layout rules for this rank's own
// datatype (this rank alone decides, env.chosen_by_layout, unless the rule is
// one every rank finds), else the library.
template <class Call, class KeyFn>
__attribute__((noinline)) int ByLayout(Runtime* rt, CommState* s, const Call& call,
                                       MPI_Comm comm, KeyFn key) {
  bool shared = false;
  const Algorithm algorithm =
      rt->ChooseLayout(*s, Call::kCollective, DataTypeOf(call, s->env.rank), key, &shared);
  if (algorithm == Algorithm::kDefault) return call.Native(comm);
  CollEnv env = s->env;
  env.chosen_by_layout = !shared;
  Outcome outcome;
  Algorithm ran;
  const int rc = Execute(algorithm, call, env, &outcome, &ran);
  rt->Record(*s, Call::kCollective, algorithm, outcome, ran);
  return rc;
}

// A call the library gets wrong (shim/runtime/repairs.h): `repair` runs it,
// on MPI_BYTEs as every rank does, whatever the table says; not timed.
template <class Call>
__attribute__((noinline)) int Repaired(Runtime* rt, CommState* s, const Call& call,
                                       Algorithm repair) {
  Outcome outcome;
  Algorithm ran;
  const int rc = Execute(repair, call, s->env, &outcome, &ran);
  rt->Record(*s, Call::kCollective, repair, outcome, ran);
  return rc;
}

// Runs what Choose gave a call: the library's call, a layout rule's choice
// where it gave default, else the algorithm.
template <class Call, class KeyFn>
__attribute__((always_inline)) inline int RunChoice(Runtime* rt, CommState* s,
                                                    const Call& call, MPI_Comm comm,
                                                    Algorithm algorithm, KeyFn key) {
  if (algorithm == Algorithm::kDefault) {
    if (s->layouts[IndexOf(Call::kCollective)].count == 0) return call.Native(comm);
    return ByLayout(rt, s, call, comm, key);
  }
  Outcome outcome;
  Algorithm ran;
  const int rc = Execute(algorithm, call, s->env, &outcome, &ran);
  rt->Record(*s, Call::kCollective, algorithm, outcome, ran);
  return rc;
}

// A call of a collective the table can change: state, tick, choice. Inlined
// into Slow, its only caller: one call frame less on every dispatched call.
// `ticked`: the wrapper's countdown picked this call to sample.
template <class Call>
__attribute__((always_inline)) inline int Dispatch(Runtime* rt, const Call& call, MPI_Comm comm,
                                                   bool ticked) {
  CommState* s = rt->StateOf(comm);
  if (s == nullptr) return call.Native(comm);
  if constexpr (Call::kCollective == Collective::kGather ||
                Call::kCollective == Collective::kScatter) {
    const Algorithm repair = rt->Repair(Call::kCollective);
    if (repair != Algorithm::kDefault && s->intra &&
        NeedsMixedTypesRepair(DataTypeOf(call, s->env.rank))) {
      return Repaired(rt, s, call, repair);
    }
  }
  if (s->observer) {
    if (ticked || (rt->Exploring() ? s->observer->Tick(Call::kCollective) : rt->SampleNow())) {
      if (!rt->Exploring()) rt->Resample();
      return Event(rt, s, call);
    }
  }
  const auto key = [&] { return call.KeyBytes(s->env); };
  const Algorithm algorithm = rt->Choose(*s, Call::kCollective, key);
  if (__builtin_expect(s->regimes != nullptr, 0)) {
    const int rc = RunChoice(rt, s, call, comm, algorithm, key);
    s->regimes->Done();
    return rc;
  }
  return RunChoice(rt, s, call, comm, algorithm, key);
}

// Everything but the fastest paths. `ticked`: the communicator's counter
// already counted this call (and found an event).
template <class Call, class Native, class... Args>
__attribute__((noinline)) int Slow(Native native, MPI_Comm comm, bool ticked,
                                   Args... args) {
  constexpr Collective c = Call::kCollective;
  Runtime* rt = Runtime::Current();
  if (rt == nullptr) return native(args..., comm);  // only if MPI was misused
  if constexpr (c == Collective::kBarrier) {
    CommState* b = rt->StateOf(comm);
    if (b != nullptr && b->regimes) b->regimes->NoteBarrier();
  }
  if (rt->Active(c)) return Dispatch(rt, Call{args...}, comm, ticked);
  if (ticked && !rt->Exploring()) rt->Resample();  // the countdown expired
  CommState* s = rt->StateOf(comm);
  if (s == nullptr || !s->observer) return native(args..., comm);
  if (ticked || (rt->Exploring() && s->observer->Tick(c))) {
    return Event(rt, s, Call{args...});
  }
  return native(args..., comm);
}

// Forced's long way, with the wrapper's own arguments (so that reaching it
// is a plain jump): Slow's, for a call that could not go straight to a
// shadow (the first on its communicator, another communicator than this
// thread's last, a call that moves nothing) or that the countdown picked to
// sample (`ticked`). Where the call went to a shadow, the next ones on this
// communicator may go there directly.
template <class Call, bool ticked, class... Args>
__attribute__((noinline)) int ForcedSlow(Args... args, MPI_Comm comm) {
  const int rc = Slow<Call>(+[](Args... a, MPI_Comm c) { return Call{a...}.Native(c); },
                            comm, ticked, args...);
  if (CommState* s = Runtime::CachedState(comm);
      s != nullptr && s->direct[IndexOf(Call::kCollective)].runs == nullptr) {
    if (const Runtime* rt = Runtime::Current()) rt->NoteDirect(*s, Call::kCollective);
  }
  return rc;
}

// A call under Runtime::kForced: what Dispatch and Execute would do, from
// the thread's last state, without the runtime: the call on the shadow,
// counted, the user's communicator's handler judging errors. A call that
// moves nothing runs the default, so it takes the long way.
template <class Call, class... Args>
__attribute__((noinline)) int Forced(Args... args, MPI_Comm comm) {
  if (CommState* s = Runtime::CachedState(comm)) {
    const CommState::Direct& d = s->direct[IndexOf(Call::kCollective)];
    if (d.runs != nullptr && !MovesNothing(Call{args...}, s->env)) {
      if (Runtime::SampleNow()) return ForcedSlow<Call, true, Args...>(args..., comm);
      ++*d.runs;
      return RunOnShadow(Call{args...}, s->env, d.shadow);
    }
  }
  return ForcedSlow<Call, false, Args...>(args..., comm);
}

// Every wrapper's entry. The library's own function is called directly (a
// tail call, the arguments untouched, no frame) when the shim has nothing to
// do for this call, and when it only counts the call: on a per-thread
// countdown when only sampling, on the communicator this thread used last
// when exploring. The first two cases read one byte and, when sampling, one
// thread-local counter.
template <class Call, class Native, class... Args>
__attribute__((always_inline)) inline int Enter(Native native, MPI_Comm comm, Args... args) {
  constexpr Collective c = Call::kCollective;
  const Runtime::Mode mode = Runtime::ModeOf(c);
  if (mode == Runtime::kPass) return native(args..., comm);
  if (mode == Runtime::kSample) {
    if (!Runtime::SampleNow()) return native(args..., comm);
    return Slow<Call>(native, comm, true, args...);
  }
  if (mode == Runtime::kExplore) {
    if (CommObserver* o = Runtime::CachedObserver(comm)) {
      if (!o->Tick(c)) return native(args..., comm);
      return Slow<Call>(native, comm, true, args...);
    }
  }
  if (mode == Runtime::kForced) return Forced<Call, Args...>(args..., comm);
  return Slow<Call>(native, comm, false, args...);
}

}  // namespace

namespace api {

int Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return Enter<AllgatherCall>(PMPI_Allgather, comm, sendbuf, sendcount, sendtype, recvbuf,
                              recvcount, recvtype);
}

int Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype,
               MPI_Comm comm) {
  return Enter<AllgathervCall>(PMPI_Allgatherv, comm, sendbuf, sendcount, sendtype,
                               recvbuf, recvcounts, displs, recvtype);
}

int Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm) {
  return Enter<AllreduceCall>(PMPI_Allreduce, comm, sendbuf, recvbuf, count, datatype,
                              op);
}

int Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return Enter<AlltoallCall>(PMPI_Alltoall, comm, sendbuf, sendcount, sendtype, recvbuf,
                             recvcount, recvtype);
}

int Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return Enter<AlltoallvCall>(PMPI_Alltoallv, comm, sendbuf, sendcounts, sdispls, sendtype,
                              recvbuf, recvcounts, rdispls, recvtype);
}

int Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return Enter<AlltoallwCall>(PMPI_Alltoallw, comm, sendbuf, sendcounts, sdispls,
                              sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
}

int Barrier(MPI_Comm comm) { return Enter<BarrierCall>(PMPI_Barrier, comm); }

int Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return Enter<BcastCall>(PMPI_Bcast, comm, buffer, count, datatype, root);
}

int Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           MPI_Comm comm) {
  return Enter<ExscanCall>(PMPI_Exscan, comm, sendbuf, recvbuf, count, datatype, op);
}

int Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Enter<GatherCall>(PMPI_Gather, comm, sendbuf, sendcount, sendtype, recvbuf,
                           recvcount, recvtype, root);
}

int Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            MPI_Comm comm) {
  return Enter<GathervCall>(PMPI_Gatherv, comm, sendbuf, sendcount, sendtype, recvbuf,
                            recvcounts, displs, recvtype, root);
}

int Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
           MPI_Op op, int root, MPI_Comm comm) {
  return Enter<ReduceCall>(PMPI_Reduce, comm, sendbuf, recvbuf, count, datatype, op,
                           root);
}

int Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Enter<ReduceScatterCall>(PMPI_Reduce_scatter, comm, sendbuf, recvbuf, recvcounts,
                                  datatype, op);
}

int Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Enter<ReduceScatterBlockCall>(PMPI_Reduce_scatter_block, comm, sendbuf, recvbuf,
                                       recvcount, datatype, op);
}

int Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
         MPI_Comm comm) {
  return Enter<ScanCall>(PMPI_Scan, comm, sendbuf, recvbuf, count, datatype, op);
}

int Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Enter<ScatterCall>(PMPI_Scatter, comm, sendbuf, sendcount, sendtype, recvbuf,
                            recvcount, recvtype, root);
}

int Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
             MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm comm) {
  return Enter<ScattervCall>(PMPI_Scatterv, comm, sendbuf, sendcounts, displs, sendtype,
                             recvbuf, recvcount, recvtype, root);
}

}  // namespace api
}  // namespace colltune::shim

using namespace colltune::shim;  // NOLINT: the wrappers are C entry points

// Each C entry point is its api:: function inlined whole (flatten), so that
// the pass-through is the entry point's own jump to the library.
#define COLLTUNE_C_ENTRY COLLTUNE_EXPORT __attribute__((flatten))

COLLTUNE_C_ENTRY int MPI_Allgather(const void* sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                  MPI_Datatype recvtype, MPI_Comm comm) {
  return api::Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

COLLTUNE_C_ENTRY int MPI_Allgatherv(const void* sendbuf, int sendcount,
                                   MPI_Datatype sendtype, void* recvbuf,
                                   const int recvcounts[], const int displs[],
                                   MPI_Datatype recvtype, MPI_Comm comm) {
  return api::Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                         recvtype, comm);
}

COLLTUNE_C_ENTRY int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return api::Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

COLLTUNE_C_ENTRY int MPI_Alltoall(const void* sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                 MPI_Datatype recvtype, MPI_Comm comm) {
  return api::Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

COLLTUNE_C_ENTRY int MPI_Alltoallv(const void* sendbuf, const int sendcounts[],
                                  const int sdispls[], MPI_Datatype sendtype,
                                  void* recvbuf, const int recvcounts[],
                                  const int rdispls[], MPI_Datatype recvtype,
                                  MPI_Comm comm) {
  return api::Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                        rdispls, recvtype, comm);
}

COLLTUNE_C_ENTRY int MPI_Alltoallw(const void* sendbuf, const int sendcounts[],
                                  const int sdispls[], const MPI_Datatype sendtypes[],
                                  void* recvbuf, const int recvcounts[],
                                  const int rdispls[], const MPI_Datatype recvtypes[],
                                  MPI_Comm comm) {
  return api::Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                        rdispls, recvtypes, comm);
}

COLLTUNE_C_ENTRY int MPI_Barrier(MPI_Comm comm) { return api::Barrier(comm); }

COLLTUNE_C_ENTRY int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root,
                              MPI_Comm comm) {
  return api::Bcast(buffer, count, datatype, root, comm);
}

COLLTUNE_C_ENTRY int MPI_Exscan(const void* sendbuf, void* recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return api::Exscan(sendbuf, recvbuf, count, datatype, op, comm);
}

COLLTUNE_C_ENTRY int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype,
                               int root, MPI_Comm comm) {
  return api::Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                     comm);
}

COLLTUNE_C_ENTRY int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return api::Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                      root, comm);
}

COLLTUNE_C_ENTRY int MPI_Reduce(const void* sendbuf, void* recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op, int root,
                               MPI_Comm comm) {
  return api::Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

COLLTUNE_C_ENTRY int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf,
                                       const int recvcounts[], MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm) {
  return api::Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

COLLTUNE_C_ENTRY int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf,
                                             int recvcount, MPI_Datatype datatype,
                                             MPI_Op op, MPI_Comm comm) {
  return api::Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
}

COLLTUNE_C_ENTRY int MPI_Scan(const void* sendbuf, void* recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return api::Scan(sendbuf, recvbuf, count, datatype, op, comm);
}

COLLTUNE_C_ENTRY int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                int root, MPI_Comm comm) {
  return api::Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                      comm);
}

COLLTUNE_C_ENTRY int MPI_Scatterv(const void* sendbuf, const int sendcounts[],
                                 const int displs[], MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm) {
  return api::Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                       recvtype, root, comm);
}
