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
    {Algorithm::kAllreduceAsReduceBcast, Collective::kAllreduce,
     "allreduce_as_reduce_bcast", "GL5", "MPI_Reduce to rank 0, then MPI_Bcast"},
    {Algorithm::kAllreduceAsReducescatterblockAllgather, Collective::kAllreduce,
     "allreduce_as_reducescatterblock_allgather", "GL6",
     "MPI_Reduce_scatter_block on p equal blocks (padded), then MPI_Allgather"},
    {Algorithm::kBcastAsScatterAllgather, Collective::kBcast,
     "bcast_as_scatter_allgather", "GL10",
     "van de Geijn: MPI_Scatter of p byte blocks, then MPI_Allgather"},
    {Algorithm::kGatherAsGatherv, Collective::kGather, "gather_as_gatherv",
     "GL12", "MPI_Gatherv with equal counts"},
    {Algorithm::kReduceAsAllreduce, Collective::kReduce, "reduce_as_allreduce",
     "GL14", "MPI_Allreduce; non-roots discard the result"},
    {Algorithm::kScatterAsScatterv, Collective::kScatter, "scatter_as_scatterv",
     "GL22", "MPI_Scatterv with equal counts"},
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
