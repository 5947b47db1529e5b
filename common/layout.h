// Node layouts: how a job's ranks sit on nodes. Besides nodes and ppn a
// profile is keyed by the placement of ranks and, where nodes hold different
// numbers of processes, by those numbers (JobContext::placement,
// JobContext::node_sizes).
#ifndef COLLTUNE_COMMON_LAYOUT_H_
#define COLLTUNE_COMMON_LAYOUT_H_

#include <string>
#include <vector>

#include "common/job_context.h"

namespace colltune {

// Placements. Block: every node's ranks are consecutive and nodes come in
// rank order (what one node, or one process per node, always is). Round
// robin: rank r is on node r mod nodes. Scattered: anything else.
inline constexpr char kPlacementBlock[] = "block";
inline constexpr char kPlacementRoundRobin[] = "round_robin";
inline constexpr char kPlacementScattered[] = "scattered";

// Sets comm_size, nodes, ppn, placement and node_sizes of `context` from the
// node of every rank (`node_of[r]`, nodes numbered in order of their first
// rank).
void DescribeLayout(const std::vector<int>& node_of, JobContext* context);

// What is wrong with `c`'s placement and node_sizes given its comm_size,
// nodes and ppn, or "" if nothing (both may be empty: not recorded).
std::string LayoutError(const JobContext& c);

// For people: "2 x 2, block", "3+1 on 2 nodes, round robin", "1 x 4".
std::string LayoutText(const JobContext& c);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_LAYOUT_H_
