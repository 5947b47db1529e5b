#include "common/counted.h"

#include <array>
#include <utility>

namespace colltune {
namespace {

constexpr std::string_view kNames[kNumCounted] = {
    // non-blocking, catalog.h's order
    "iallgather", "iallgatherv", "iallreduce", "ialltoall", "ialltoallv", "ialltoallw",
    "ibarrier", "ibcast", "iexscan", "igather", "igatherv", "ireduce",
    "ireduce_scatter", "ireduce_scatter_block", "iscan", "iscatter", "iscatterv",
    // persistent
    "allgather_init", "allgatherv_init", "allreduce_init", "alltoall_init",
    "alltoallv_init", "alltoallw_init", "barrier_init", "bcast_init", "exscan_init",
    "gather_init", "gatherv_init", "reduce_init", "reduce_scatter_init",
    "reduce_scatter_block_init", "scan_init", "scatter_init", "scatterv_init",
    // neighbourhood: blocking, non-blocking, persistent
    "neighbor_allgather", "neighbor_allgatherv", "neighbor_alltoall",
    "neighbor_alltoallv", "neighbor_alltoallw",
    "ineighbor_allgather", "ineighbor_allgatherv", "ineighbor_alltoall",
    "ineighbor_alltoallv", "ineighbor_alltoallw",
    "neighbor_allgather_init", "neighbor_allgatherv_init", "neighbor_alltoall_init",
    "neighbor_alltoallv_init", "neighbor_alltoallw_init",
    // starts of persistent requests (MPI_Start, MPI_Startall)
    "allgather_init_start", "allgatherv_init_start", "allreduce_init_start",
    "alltoall_init_start", "alltoallv_init_start", "alltoallw_init_start",
    "barrier_init_start", "bcast_init_start", "exscan_init_start", "gather_init_start",
    "gatherv_init_start", "reduce_init_start", "reduce_scatter_init_start",
    "reduce_scatter_block_init_start", "scan_init_start", "scatter_init_start",
    "scatterv_init_start",
    "neighbor_allgather_init_start", "neighbor_allgatherv_init_start",
    "neighbor_alltoall_init_start", "neighbor_alltoallv_init_start",
    "neighbor_alltoallw_init_start",
};

constexpr CallKind KindOfId(int id) {
  return id < kNumCollectives                          ? CallKind::kNonblocking
         : id < 2 * kNumCollectives                    ? CallKind::kPersistent
         : id < kNumCountedCalls                       ? CallKind::kNeighborhood
         : id < kNumCountedCalls + kNumCollectives     ? CallKind::kPersistent
                                                       : CallKind::kNeighborhood;
}

template <size_t... I>
constexpr std::array<CountedInfo, kNumCounted> MakeInfos(std::index_sequence<I...>) {
  return {{CountedInfo{static_cast<int>(I), kNames[I], KindOfId(static_cast<int>(I))}...}};
}
constexpr std::array<CountedInfo, kNumCounted> kInfos =
    MakeInfos(std::make_index_sequence<kNumCounted>());

// The names follow catalog.h's collectives: a reordering there shows here.
static_assert(kNames[NonblockingId(Collective::kAllreduce)] == "iallreduce");
static_assert(kNames[NonblockingId(Collective::kScatterv)] == "iscatterv");
static_assert(kNames[PersistentId(Collective::kAllgather)] == "allgather_init");
static_assert(kNames[PersistentId(Collective::kReduceScatterBlock)] ==
              "reduce_scatter_block_init");
static_assert(kNames[NeighborId(Neighbor::kAlltoall, NeighborForm::kBlocking)] ==
              "neighbor_alltoall");
static_assert(kNames[NeighborId(Neighbor::kAlltoallw, NeighborForm::kPersistent)] ==
              "neighbor_alltoallw_init");

// A start's name is its initialization's with "_start".
constexpr bool StartsNamed() {
  for (int id = 0; id < kNumCountedCalls; ++id) {
    const int start = StartId(id);
    if (start < 0) continue;
    if (kNames[start].substr(0, kNames[id].size()) != kNames[id] ||
        kNames[start].substr(kNames[id].size()) != "_start" ||
        KindOfId(start) != KindOfId(id)) {
      return false;
    }
  }
  return true;
}
static_assert(StartsNamed());
static_assert(StartId(NonblockingId(Collective::kAllreduce)) == -1);
static_assert(StartId(NeighborId(Neighbor::kAlltoallw, NeighborForm::kPersistent)) ==
              kNumCounted - 1);

}  // namespace

const CountedInfo& CountedInfoOf(int id) { return kInfos[id]; }

std::optional<int> ParseCounted(std::string_view name) {
  for (const CountedInfo& info : kInfos) {
    if (info.name == name) return info.id;
  }
  return std::nullopt;
}

std::string_view KindName(CallKind kind) {
  constexpr std::string_view kKindNames[] = {"nonblocking", "persistent", "neighborhood"};
  return kKindNames[static_cast<int>(kind)];
}

std::optional<CallKind> ParseKind(std::string_view name) {
  for (CallKind k : {CallKind::kNonblocking, CallKind::kPersistent, CallKind::kNeighborhood}) {
    if (KindName(k) == name) return k;
  }
  return std::nullopt;
}

}  // namespace colltune
