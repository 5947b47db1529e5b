#include "shim/coll/node_layout.h"

#include <algorithm>

namespace colltune::shim {

bool NodeLayout::Ensure(MPI_Comm comm) {
  if (state_ == State::kUnbuilt) {
    const bool built = Build(comm);
    if (!built) Free();
    state_ = built ? State::kBuilt : State::kFailed;
  }
  return state_ == State::kBuilt;
}

bool NodeLayout::Build(MPI_Comm comm) {
  int size = 0;
  bool ok = PMPI_Comm_rank(comm, &rank_) == MPI_SUCCESS &&
            PMPI_Comm_size(comm, &size) == MPI_SUCCESS && size > 0;
  // Nodes are numbered by their lowest rank: every process learns its
  // node's, then everyone's.
  int node_rank = 0;
  int first = rank_;
  ok = ok && PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank_,
                                  MPI_INFO_NULL, &node_) == MPI_SUCCESS &&
       node_ != MPI_COMM_NULL &&
       PMPI_Comm_rank(node_, &node_rank) == MPI_SUCCESS &&
       PMPI_Bcast(&first, 1, MPI_INT, 0, node_) == MPI_SUCCESS;
  std::vector<int> first_of(ok ? size : 0);
  ok = ok && PMPI_Allgather(&first, 1, MPI_INT, first_of.data(), 1, MPI_INT,
                            comm) == MPI_SUCCESS;
  if (!ok) return false;

  first_ = first_of;
  std::sort(first_.begin(), first_.end());
  first_.erase(std::unique(first_.begin(), first_.end()), first_.end());
  const int n = static_cast<int>(first_.size());
  node_of_.assign(size, 0);
  rank_in_node_.assign(size, 0);
  size_of_.assign(n, 0);
  before_.assign(n, 0);
  blocked_ = true;
  for (int r = 0; r < size; ++r) {
    const int node = static_cast<int>(
        std::lower_bound(first_.begin(), first_.end(), first_of[r]) - first_.begin());
    node_of_[r] = node;
    rank_in_node_[r] = size_of_[node]++;
    if (r > 0 && node < node_of_[r - 1]) blocked_ = false;
  }
  regular_ = true;
  for (int i = 1; i < n; ++i) {
    before_[i] = before_[i - 1] + size_of_[i - 1];
    if (size_of_[i] != size_of_[0]) regular_ = false;
  }
  // The split by shared memory must agree with what everyone was told.
  int node_size = 0;
  ok = PMPI_Comm_size(node_, &node_size) == MPI_SUCCESS &&
       node_size == size_of_[node_of_[rank_]] && node_rank == rank_in_node_[rank_];
  // Every process joins the same splits (the layout is the same everywhere).
  ok = PMPI_Comm_split(comm, node_rank == 0 ? 0 : MPI_UNDEFINED, rank_,
                       &leaders_) == MPI_SUCCESS && ok;
  if (regular_) {
    ok = PMPI_Comm_split(comm, node_rank, node_of_[rank_], &lane_) == MPI_SUCCESS &&
         ok;
  }
  int mine = ok ? 1 : 0, all = 0;
  return PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS &&
         all == 1;
}

void NodeLayout::Free() {
  for (MPI_Comm* c : {&node_, &leaders_, &lane_}) {
    if (*c != MPI_COMM_NULL) PMPI_Comm_free(c);
  }
}

bool MayReduceByNode(const NodeLayout& nodes, MPI_Op op) {
  if (nodes.blocked()) return true;
  int commutes = 0;
  return PMPI_Op_commutative(op, &commutes) == MPI_SUCCESS && commutes;
}

}  // namespace colltune::shim
