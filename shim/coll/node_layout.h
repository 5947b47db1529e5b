// How a communicator's processes sit on nodes, and the communicators that
// hierarchical algorithms run on: built once per communicator, on the first
// call that asks for them, and freed with it.
//
// A node is what MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups together.
// Nodes are numbered by their lowest rank in the communicator, and every
// derived communicator keeps the communicator's rank order, so on a layout
// placed by node blocks an algorithm that reduces within nodes and then
// across them applies the operation in rank order (docs/algorithms.md,
// "Hierarchical algorithms").
#ifndef COLLTUNE_SHIM_COLL_NODE_LAYOUT_H_
#define COLLTUNE_SHIM_COLL_NODE_LAYOUT_H_

#include <vector>

#include "shim/mpi/mpi.h"

namespace colltune::shim {

class NodeLayout {
 public:
  NodeLayout() = default;
  NodeLayout(const NodeLayout&) = delete;
  NodeLayout& operator=(const NodeLayout&) = delete;

  // Builds the layout of `comm` unless it is built (collective over `comm`
  // the first time: every rank calls it in the same call). Returns the same
  // verdict on every rank; false also for every later call once it failed.
  bool Ensure(MPI_Comm comm);
  // Frees the communicators (MPI calls: before `comm` goes).
  void Free();

  // This process's node: its processes, in the communicator's rank order.
  MPI_Comm node() const { return node_; }
  // The lowest rank of every node, in rank order (so a leader's rank here is
  // its node's number); MPI_COMM_NULL on the other processes.
  MPI_Comm leaders() const { return leaders_; }
  // The processes with this process's rank within their nodes, one per node,
  // ordered by node number. MPI_COMM_NULL unless the layout is regular.
  MPI_Comm lane() const { return lane_; }

  int nodes() const { return static_cast<int>(first_.size()); }
  int my_node() const { return node_of_[rank_]; }
  int node_rank() const { return rank_in_node_[rank_]; }
  int node_size() const { return size_of_[my_node()]; }
  bool leader() const { return node_rank() == 0; }

  int NodeOf(int rank) const { return node_of_[rank]; }
  int RankInNode(int rank) const { return rank_in_node_[rank]; }
  int SizeOf(int node) const { return size_of_[node]; }
  // Ranks before node `node` in node order (the offset of its blocks when
  // blocks are laid out node after node).
  int Before(int node) const { return before_[node]; }

  // Every node has the same number of processes.
  bool regular() const { return regular_; }
  // Every node's processes are consecutive ranks, nodes in rank order (placed
  // by node block): node order is rank order.
  bool blocked() const { return blocked_; }

 private:
  bool Build(MPI_Comm comm);

  enum class State { kUnbuilt, kBuilt, kFailed };
  State state_ = State::kUnbuilt;
  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Comm leaders_ = MPI_COMM_NULL;
  MPI_Comm lane_ = MPI_COMM_NULL;
  int rank_ = 0;
  std::vector<int> node_of_;       // per rank
  std::vector<int> rank_in_node_;  // per rank
  std::vector<int> first_;         // per node: its lowest rank
  std::vector<int> size_of_;       // per node
  std::vector<int> before_;        // per node
  bool regular_ = false;
  bool blocked_ = false;
};

// Whether a reduction with `op` may combine within nodes first and across
// them after: `op` commutes, or node order is rank order (MPI fixes the
// order of a non-commutative operation's operands, not their grouping).
bool MayReduceByNode(const NodeLayout& nodes, MPI_Op op);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_NODE_LAYOUT_H_
