// The catalogue of collectives and algorithms: the names of the public
// contract, shared by the shim, the daemon, the benchmark and the CLI.
//
// A name that is not here is not an algorithm: the daemon rejects it, the
// table parser rejects it, COLLTUNE_FORCE reports it and ignores it. Adding an
// algorithm means adding it here and giving the shim an implementation
// (shim/coll/<collective>/).
//
// This header is plain C++17 with no dependencies: it is compiled into the
// shim, which lives inside other people's jobs.
#ifndef COLLTUNE_COMMON_CATALOG_H_
#define COLLTUNE_COMMON_CATALOG_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace colltune {

// Every collective the shim intercepts, in the contract's (alphabetical) order.
enum class Collective : uint8_t {
  kAllgather,
  kAllreduce,
  kAlltoall,
  kBcast,
  kGather,
  kGatherv,
  kReduce,
  kReduceScatterBlock,
  kScan,
  kScatter,
  kScatterv,
};
inline constexpr int kNumCollectives = 11;

// Algorithm 0 is the MPI library's own implementation, valid for every
// collective; every other algorithm belongs to exactly one collective.
enum class Algorithm : uint8_t {
  kDefault = 0,
  kAllgatherAsGatherBcast,                      // GL1
  kAllgatherAsAlltoall,                         // GL2
  kAllgatherAsAllreduce,                        // GL3
  kAllgatherAsAllgatherv,                       // GL4
  kAllreduceAsReduceBcast,                      // GL5
  kAllreduceAsReducescatterblockAllgather,      // GL6
  kAllreduceAsReducescatterAllgatherv,          // GL7
  kAlltoallAsAlltoallv,                         // GL8
  kBcastAsAllgatherv,                           // GL9
  kBcastAsScatterAllgather,                     // GL10
  kGatherAsAllgather,                           // GL11
  kGatherAsGatherv,                             // GL12
  kGatherAsReduce,                              // GL13
  kReduceAsAllreduce,                           // GL14
  kReduceAsReducescatterblockGather,            // GL15
  kReduceAsReducescatterGatherv,                // GL16
  kReducescatterblockAsReduceScatter,           // GL17
  kReducescatterblockAsReducescatter,           // GL18
  kReducescatterblockAsAllreduce,               // GL19
  kScanAsExscanReducelocal,                     // GL20
  kScatterAsBcast,                              // GL21
  kScatterAsScatterv,                           // GL22
  // Seed 000: linear-time ordered-hypercube trees, and padding (guideline 2).
  kGathervAsTuwTree,
  kScattervAsTuwTree,
  kGatherAsTuwTree,
  kScatterAsTuwTree,
  kGathervAsAllreduceGather,
  kScattervAsAllreduceScatter,
};
inline constexpr int kNumAlgorithms = 29;

struct CollectiveInfo {
  Collective id;
  std::string_view name;      // contract name, e.g. "reduce_scatter_block"
  std::string_view mpi_name;  // e.g. "MPI_Reduce_scatter_block"
  // Irregular (v) collectives have no rank-invariant message size: their
  // decisions depend on the communicator size only (message-size key 0).
  bool irregular;
};

struct AlgorithmInfo {
  Algorithm id;
  Collective collective;  // meaningless for kDefault
  std::string_view name;
  std::string_view guideline;  // "GL5" for seed 004's guidelines, else ""
  std::string_view summary;    // what the algorithm does, one line
};

const CollectiveInfo& InfoOf(Collective c);
const AlgorithmInfo& InfoOf(Algorithm a);

inline int IndexOf(Collective c) { return static_cast<int>(c); }
inline int IndexOf(Algorithm a) { return static_cast<int>(a); }

std::optional<Collective> ParseCollective(std::string_view name);
std::optional<Algorithm> ParseAlgorithm(std::string_view name);

// True if `a` computes `c`: default does for every collective.
bool Implements(Algorithm a, Collective c);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_CATALOG_H_
