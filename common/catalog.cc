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

std::optional<Algorithm> ParseAlgorithm(std::string_view name) {
  for (const AlgorithmInfo& info : kAlgorithms) {
    if (info.name == name) return info.id;
  }
  return std::nullopt;
}

bool Implements(Algorithm a, Collective c) {
  return a == Algorithm::kDefault || InfoOf(a).collective == c;
}

}  // namespace colltune
