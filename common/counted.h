// The collectives the shim counts but does not tune (yet): the non-blocking
// (MPI_I*), persistent (MPI-4 MPI_*_init) and neighbourhood collectives
// (MPI_Neighbor_*, MPI_Ineighbor_*, MPI_Neighbor_*_init). Their calls are
// passed to the library unchanged and counted per message-size bucket, so
// job reports show what jobs call besides the blocking collectives of
// catalog.h. Names are the lower-case MPI names without `MPI_`:
// "iallreduce", "allreduce_init", "neighbor_alltoallv",
// "ineighbor_alltoall", "neighbor_allgather_init".
//
// A persistent collective is counted twice over: its initialization under
// its own name ("allreduce_init", per call of MPI_Allreduce_init or Open
// MPI's MPIX_Allreduce_init) and each MPI_Start/MPI_Startall of the request
// it made under the same name with "_start" ("allreduce_init_start"), in
// the size bucket of the initialization.
//
// Plain C++17 with no dependencies beyond catalog.h: compiled into the shim.
#ifndef COLLTUNE_COMMON_COUNTED_H_
#define COLLTUNE_COMMON_COUNTED_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/catalog.h"

namespace colltune {

enum class CallKind : uint8_t {
  kNonblocking,   // MPI_I<collective>
  kPersistent,    // MPI_<Collective>_init (MPI-4, Open MPI's MPIX_), and its starts
  kNeighborhood,  // every form of the neighbourhood collectives, starts too
};

// The five neighbourhood collectives, in MPI's order.
enum class Neighbor : uint8_t {
  kAllgather,
  kAllgatherv,
  kAlltoall,
  kAlltoallv,
  kAlltoallw,
};
inline constexpr int kNumNeighbor = 5;
// How a neighbourhood collective is called.
enum class NeighborForm : uint8_t { kBlocking, kNonblocking, kPersistent };

// Ids 0..kNumCounted-1: the non-blocking forms of catalog.h's collectives
// (in its order), their persistent forms, then the neighbourhood ones
// (blocking, non-blocking, persistent; each in Neighbor's order), then the
// starts of the persistent requests (catalog.h's, then the neighbourhood
// ones). Ids are positions here only: reports name the calls.
inline constexpr int kNumCountedCalls = 2 * kNumCollectives + 3 * kNumNeighbor;  // 49
inline constexpr int kNumCounted = kNumCountedCalls + kNumCollectives + kNumNeighbor;  // 71
constexpr int NonblockingId(Collective c) { return IndexOf(c); }
constexpr int PersistentId(Collective c) { return kNumCollectives + IndexOf(c); }
constexpr int NeighborId(Neighbor n, NeighborForm f) {
  return 2 * kNumCollectives + kNumNeighbor * static_cast<int>(f) + static_cast<int>(n);
}
// The id of the starts of the requests that persistent id `init` makes
// (PersistentId or NeighborId(n, kPersistent)), or -1 for any other id.
constexpr int StartId(int init) {
  constexpr int kFirstNeighborInit = NeighborId(Neighbor::kAllgather, NeighborForm::kPersistent);
  if (init >= kNumCollectives && init < 2 * kNumCollectives) {
    return kNumCountedCalls + init - kNumCollectives;
  }
  if (init >= kFirstNeighborInit && init < kFirstNeighborInit + kNumNeighbor) {
    return kNumCountedCalls + kNumCollectives + init - kFirstNeighborInit;
  }
  return -1;
}

struct CountedInfo {
  int id;
  std::string_view name;  // "iallreduce"
  CallKind kind;
};

const CountedInfo& CountedInfoOf(int id);  // id in 0..kNumCounted-1
std::optional<int> ParseCounted(std::string_view name);

std::string_view KindName(CallKind kind);  // "nonblocking", "persistent", "neighborhood"
std::optional<CallKind> ParseKind(std::string_view name);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_COUNTED_H_
