#include "common/catalog.h"

namespace colltune {
namespace {

constexpr CollectiveInfo kCollectives[kNumCollectives] = {
    {Collective::kAllgather, "allgather", "MPI_Allgather", false},
    {Collective::kAllreduce, "allreduce", "MPI_Allreduce", false},
    {Collective::kAlltoall, "alltoall", "MPI_Alltoall", false},
    {Collective::kBcast, "bcast", "MPI_Bcast", false},
    {Collective::kGather, "gather", "MPI_Gather", false},
    {Collective::kGatherv, "gatherv", "MPI_Gatherv", true},
    {Collective::kReduce, "reduce", "MPI_Reduce", false},
    {Collective::kReduceScatterBlock, "reduce_scatter_block",
     "MPI_Reduce_scatter_block", false},
    {Collective::kScan, "scan", "MPI_Scan", false},
    {Collective::kScatter, "scatter", "MPI_Scatter", false},
    {Collective::kScatterv, "scatterv", "MPI_Scatterv", true},
};

// Where a forced native algorithm is wrong for non-commutative operations,
// and the size it is limited to (AlgorithmInfo; docs/library-controls.md).
constexpr uint8_t Unordered(Collective c, std::string_view name) {
  if (c == Collective::kAllreduce) {
    return name == "native:ring" || name == "native:segmented_ring" ? kOpenMpi : 0;
  }
  if (c == Collective::kReduce) {
    return name == "native:chain" || name == "native:pipeline" ||
                   name == "native:binary" || name == "native:binomial"
               ? kOpenMpi
               : 0;
  }
  return 0;
}

constexpr AlgorithmInfo Native(int i, Collective c, std::string_view name,
                               uint8_t libraries) {
  return {static_cast<Algorithm>(static_cast<int>(Algorithm::kFirstNative) + i),
          c,
          name,
          "",
          "the library's own algorithm of this name, forced",
          libraries,
          Unordered(c, name),
          static_cast<uint8_t>(name == "native:two_proc" ? 2 : 0)};
}

constexpr AlgorithmInfo kAlgorithms[kNumAlgorithms] = {
    {Algorithm::kDefault, Collective::kAllgather, "default", "",
     "the MPI library's own implementation"},
    {Algorithm::kAllgatherAsGatherBcast, Collective::kAllgather,
     "allgather_as_gather_bcast", "GL1", "MPI_Gather to rank 0, then MPI_Bcast"},
    {Algorithm::kAllgatherAsAlltoall, Collective::kAllgather,
     "allgather_as_alltoall", "GL2",
     "MPI_Alltoall of p copies of the own block"},
    {Algorithm::kAllgatherAsAllreduce, Collective::kAllgather,
     "allgather_as_allreduce", "GL3",
     "MPI_Allreduce with MPI_BOR over zeroed bytes holding the own block"},
    {Algorithm::kAllgatherAsAllgatherv, Collective::kAllgather,
     "allgather_as_allgatherv", "GL4", "MPI_Allgatherv with equal counts"},
    {Algorithm::kAllreduceAsReduceBcast, Collective::kAllreduce,
     "allreduce_as_reduce_bcast", "GL5", "MPI_Reduce to rank 0, then MPI_Bcast"},
    {Algorithm::kAllreduceAsReducescatterblockAllgather, Collective::kAllreduce,
     "allreduce_as_reducescatterblock_allgather", "GL6",
     "MPI_Reduce_scatter_block on p equal blocks (padded), then MPI_Allgather"},
    {Algorithm::kAllreduceAsReducescatterAllgatherv, Collective::kAllreduce,
     "allreduce_as_reducescatter_allgatherv", "GL7",
     "MPI_Reduce_scatter on balanced blocks, then MPI_Allgatherv"},
    {Algorithm::kAlltoallAsAlltoallv, Collective::kAlltoall,
     "alltoall_as_alltoallv", "GL8", "MPI_Alltoallv with equal counts"},
    {Algorithm::kBcastAsAllgatherv, Collective::kBcast, "bcast_as_allgatherv",
     "GL9", "MPI_Allgatherv where only the root contributes"},
    {Algorithm::kBcastAsScatterAllgather, Collective::kBcast,
     "bcast_as_scatter_allgather", "GL10",
     "van de Geijn: MPI_Scatter of p byte blocks, then MPI_Allgather"},
    {Algorithm::kGatherAsAllgather, Collective::kGather, "gather_as_allgather",
     "GL11", "MPI_Allgather; non-roots discard the result"},
    {Algorithm::kGatherAsGatherv, Collective::kGather, "gather_as_gatherv",
     "GL12", "MPI_Gatherv with equal counts"},
    {Algorithm::kGatherAsReduce, Collective::kGather, "gather_as_reduce", "GL13",
     "MPI_Reduce with MPI_BOR over zeroed bytes holding the own block"},
    {Algorithm::kReduceAsAllreduce, Collective::kReduce, "reduce_as_allreduce",
     "GL14", "MPI_Allreduce; non-roots discard the result"},
    {Algorithm::kReduceAsReducescatterblockGather, Collective::kReduce,
     "reduce_as_reducescatterblock_gather", "GL15",
     "MPI_Reduce_scatter_block on p equal blocks (padded), then MPI_Gather"},
    {Algorithm::kReduceAsReducescatterGatherv, Collective::kReduce,
     "reduce_as_reducescatter_gatherv", "GL16",
     "MPI_Reduce_scatter on balanced blocks, then MPI_Gatherv"},
    {Algorithm::kReducescatterblockAsReduceScatter,
     Collective::kReduceScatterBlock, "reducescatterblock_as_reduce_scatter",
     "GL17", "MPI_Reduce to rank 0, then MPI_Scatter"},
    {Algorithm::kReducescatterblockAsReducescatter,
     Collective::kReduceScatterBlock, "reducescatterblock_as_reducescatter",
     "GL18", "MPI_Reduce_scatter with equal counts"},
    {Algorithm::kReducescatterblockAsAllreduce, Collective::kReduceScatterBlock,
     "reducescatterblock_as_allreduce", "GL19",
     "MPI_Allreduce; each rank keeps its block"},
    {Algorithm::kScanAsExscanReducelocal, Collective::kScan,
     "scan_as_exscan_reducelocal", "GL20",
     "MPI_Exscan, then MPI_Reduce_local of the prefix with the own input"},
    {Algorithm::kScatterAsBcast, Collective::kScatter, "scatter_as_bcast",
     "GL21", "MPI_Bcast of all blocks; each rank keeps its own"},
    {Algorithm::kScatterAsScatterv, Collective::kScatter, "scatter_as_scatterv",
     "GL22", "MPI_Scatterv with equal counts"},
    {Algorithm::kGathervAsTuwTree, Collective::kGatherv, "gatherv_as_tuw_tree",
     "", "linear-time ordered-hypercube gather tree built in log p rounds"},
    {Algorithm::kScattervAsTuwTree, Collective::kScatterv,
     "scatterv_as_tuw_tree", "",
     "linear-time ordered-hypercube scatter tree built in log p rounds"},
    {Algorithm::kGatherAsTuwTree, Collective::kGather, "gather_as_tuw_tree",
     "", "the ordered-hypercube gather tree, computed locally"},
    {Algorithm::kScatterAsTuwTree, Collective::kScatter, "scatter_as_tuw_tree",
     "", "the ordered-hypercube scatter tree, computed locally"},
    {Algorithm::kGathervAsAllreduceGather, Collective::kGatherv,
     "gatherv_as_allreduce_gather", "IG2",
     "MPI_Allreduce of the largest block, MPI_Gather of padded blocks"},
    {Algorithm::kScattervAsAllreduceScatter, Collective::kScatterv,
     "scatterv_as_allreduce_scatter", "IG2",
     "MPI_Allreduce of the largest block, MPI_Scatter of padded blocks"},
    // The libraries' own algorithms, under the names the libraries give them
    // (Open MPI's coll_tuned enumerations and MPICH's algorithm CVARs, as
    // docs/library-controls.md lists them), grouped by collective. Which ones
    // a running library offers, and how to force each, is asked of the
    // library at run time (shim/native/); a name it offers that is missing
    // here is reported, not run.
    Native(0, Collective::kAllgather, "native:bruck", kOpenMpi),
    Native(1, Collective::kAllgather, "native:brucks", kMpich),
    Native(2, Collective::kAllgather, "native:linear", kOpenMpi),
    Native(3, Collective::kAllgather, "native:nb", kMpich),
    Native(4, Collective::kAllgather, "native:neighbor", kOpenMpi),
    Native(5, Collective::kAllgather, "native:recursive_doubling", kOpenMpi | kMpich),
    Native(6, Collective::kAllgather, "native:ring", kOpenMpi | kMpich),
    Native(7, Collective::kAllgather, "native:two_proc", kOpenMpi),
    Native(8, Collective::kAllreduce, "native:basic_linear", kOpenMpi),
    Native(9, Collective::kAllreduce, "native:nb", kMpich),
    Native(10, Collective::kAllreduce, "native:nonoverlapping", kOpenMpi),
    Native(11, Collective::kAllreduce, "native:rabenseifner", kOpenMpi),
    Native(12, Collective::kAllreduce, "native:recursive_doubling", kOpenMpi | kMpich),
    Native(13, Collective::kAllreduce, "native:reduce_scatter_allgather", kMpich),
    Native(14, Collective::kAllreduce, "native:ring", kOpenMpi),
    Native(15, Collective::kAllreduce, "native:segmented_ring", kOpenMpi),
    Native(16, Collective::kAllreduce, "native:smp", kMpich),
    Native(17, Collective::kAlltoall, "native:brucks", kMpich),
    Native(18, Collective::kAlltoall, "native:linear", kOpenMpi),
    Native(19, Collective::kAlltoall, "native:linear_sync", kOpenMpi),
    Native(20, Collective::kAlltoall, "native:modified_bruck", kOpenMpi),
    Native(21, Collective::kAlltoall, "native:nb", kMpich),
    Native(22, Collective::kAlltoall, "native:pairwise", kOpenMpi | kMpich),
    Native(23, Collective::kAlltoall, "native:pairwise_sendrecv_replace", kMpich),
    Native(24, Collective::kAlltoall, "native:scattered", kMpich),
    Native(25, Collective::kAlltoall, "native:two_proc", kOpenMpi),
    Native(26, Collective::kBcast, "native:basic_linear", kOpenMpi),
    Native(27, Collective::kBcast, "native:binary_tree", kOpenMpi),
    Native(28, Collective::kBcast, "native:binomial", kOpenMpi | kMpich),
    Native(29, Collective::kBcast, "native:chain", kOpenMpi),
    Native(30, Collective::kBcast, "native:knomial", kOpenMpi),
    Native(31, Collective::kBcast, "native:nb", kMpich),
    Native(32, Collective::kBcast, "native:pipeline", kOpenMpi),
    Native(33, Collective::kBcast, "native:scatter_allgather", kOpenMpi),
    Native(34, Collective::kBcast, "native:scatter_allgather_ring", kOpenMpi),
    Native(35, Collective::kBcast, "native:scatter_recursive_doubling_allgather", kMpich),
    Native(36, Collective::kBcast, "native:scatter_ring_allgather", kMpich),
    Native(37, Collective::kBcast, "native:smp", kMpich),
    Native(38, Collective::kBcast, "native:split_binary_tree", kOpenMpi),
    Native(39, Collective::kGather, "native:basic_linear", kOpenMpi),
    Native(40, Collective::kGather, "native:binomial", kOpenMpi | kMpich),
    Native(41, Collective::kGather, "native:linear_sync", kOpenMpi),
    Native(42, Collective::kGather, "native:nb", kMpich),
    Native(43, Collective::kGatherv, "native:linear", kMpich),
    Native(44, Collective::kGatherv, "native:nb", kMpich),
    Native(45, Collective::kReduce, "native:binary", kOpenMpi),
    Native(46, Collective::kReduce, "native:binomial", kOpenMpi | kMpich),
    Native(47, Collective::kReduce, "native:chain", kOpenMpi),
    Native(48, Collective::kReduce, "native:in-order_binary", kOpenMpi),
    Native(49, Collective::kReduce, "native:linear", kOpenMpi),
    Native(50, Collective::kReduce, "native:nb", kMpich),
    Native(51, Collective::kReduce, "native:pipeline", kOpenMpi),
    Native(52, Collective::kReduce, "native:rabenseifner", kOpenMpi),
    Native(53, Collective::kReduce, "native:reduce_scatter_gather", kMpich),
    Native(54, Collective::kReduce, "native:smp", kMpich),
    Native(55, Collective::kReduceScatterBlock, "native:basic_linear", kOpenMpi),
    Native(56, Collective::kReduceScatterBlock, "native:butterfly", kOpenMpi),
    Native(57, Collective::kReduceScatterBlock, "native:nb", kMpich),
    Native(58, Collective::kReduceScatterBlock, "native:noncommutative", kMpich),
    Native(59, Collective::kReduceScatterBlock, "native:pairwise", kMpich),
    Native(60, Collective::kReduceScatterBlock, "native:recursive_doubling", kOpenMpi | kMpich),
    Native(61, Collective::kReduceScatterBlock, "native:recursive_halving", kOpenMpi | kMpich),
    Native(62, Collective::kScan, "native:linear", kOpenMpi),
    Native(63, Collective::kScan, "native:nb", kMpich),
    Native(64, Collective::kScan, "native:recursive_doubling", kOpenMpi | kMpich),
    Native(65, Collective::kScan, "native:smp", kMpich),
    Native(66, Collective::kScatter, "native:basic_linear", kOpenMpi),
    Native(67, Collective::kScatter, "native:binomial", kOpenMpi | kMpich),
    Native(68, Collective::kScatter, "native:linear_nb", kOpenMpi),
    Native(69, Collective::kScatter, "native:nb", kMpich),
    Native(70, Collective::kScatterv, "native:linear", kMpich),
    Native(71, Collective::kScatterv, "native:nb", kMpich),
};

}  // namespace

const CollectiveInfo& InfoOf(Collective c) { return kCollectives[IndexOf(c)]; }

const AlgorithmInfo& InfoOf(Algorithm a) { return kAlgorithms[IndexOf(a)]; }

std::optional<Collective> ParseCollective(std::string_view name) {
  for (const CollectiveInfo& info : kCollectives) {
    if (info.name == name) return info.id;
  }
  return std::nullopt;
}

std::optional<Algorithm> ParseAlgorithm(std::string_view name, Collective c) {
  for (const AlgorithmInfo& info : kAlgorithms) {
    if (info.name == name && Implements(info.id, c)) return info.id;
  }
  return std::nullopt;
}

bool IsAlgorithmName(std::string_view name) {
  for (const AlgorithmInfo& info : kAlgorithms) {
    if (info.name == name) return true;
  }
  return false;
}

bool Implements(Algorithm a, Collective c) {
  return a == Algorithm::kDefault || InfoOf(a).collective == c;
}

std::optional<Algorithm> FindNative(Collective c, std::string_view library_name) {
  for (int i = IndexOf(Algorithm::kFirstNative); i < kNumAlgorithms; ++i) {
    const AlgorithmInfo& info = kAlgorithms[i];
    if (info.collective == c && info.library_name() == library_name) return info.id;
  }
  return std::nullopt;
}

uint8_t NativeLibraryOf(std::string_view library) {
  if (library == "Open MPI") return kOpenMpi;
  if (library == "MPICH") return kMpich;
  return 0;
}

// The table's order is the ids' order: a wrong count or a misplaced entry
// would give an algorithm another's name.
static_assert([] {
  for (int i = 0; i < kNumAlgorithms; ++i) {
    if (IndexOf(kAlgorithms[i].id) != i) return false;
  }
  return true;
}());

}  // namespace colltune
