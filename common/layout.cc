#include "common/layout.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>

namespace colltune {
namespace {

constexpr size_t kMaxNodeSizesLength = 64;

// Sizes largest first, repeats as size*count: {1, 3} -> "3+1",
// {4, 4, 4, 2} -> "4*3+2".
std::string NodeSizesText(const std::map<int, int, std::greater<int>>& count_of_size) {
  std::string out;
  for (const auto& [size, count] : count_of_size) {
    if (!out.empty()) out += "+";
    out += std::to_string(size);
    if (count > 1) out += "*" + std::to_string(count);
  }
  return out;
}

}  // namespace

void DescribeLayout(const std::vector<int>& node_of, JobContext* context) {
  const int p = static_cast<int>(node_of.size());
  int nodes = 0;
  for (int n : node_of) nodes = std::max(nodes, n + 1);
  std::vector<int> size_of(nodes, 0);
  bool block = true, round_robin = true;
  for (int r = 0; r < p; ++r) {
    ++size_of[node_of[r]];
    if (r > 0 && node_of[r] < node_of[r - 1]) block = false;
    if (node_of[r] != r % nodes) round_robin = false;
  }
  std::map<int, int, std::greater<int>> count_of_size;
  for (int s : size_of) ++count_of_size[s];
  context->comm_size = p;
  context->nodes = nodes;
  context->ppn = count_of_size.empty() ? 0 : count_of_size.begin()->first;
  context->placement = block         ? kPlacementBlock
                       : round_robin ? kPlacementRoundRobin
                                     : kPlacementScattered;
  context->node_sizes = count_of_size.size() > 1 ? NodeSizesText(count_of_size) : "";
  if (context->node_sizes.size() > kMaxNodeSizesLength) {
    // Too many different sizes to key by: the layout is kept as irregular
    // in its largest size only.
    context->node_sizes = context->node_sizes.substr(
        0, context->node_sizes.rfind('+', kMaxNodeSizesLength - 2)) + "+...";
  }
}

std::string LayoutError(const JobContext& c) {
  if (!c.placement.empty() && c.placement != kPlacementBlock &&
      c.placement != kPlacementRoundRobin && c.placement != kPlacementScattered) {
    return "placement must be block, round_robin or scattered, got '" + c.placement + "'";
  }
  if (c.node_sizes.empty()) return "";
  if (c.node_sizes.size() > kMaxNodeSizesLength) {
    return "node_sizes is longer than " + std::to_string(kMaxNodeSizesLength) + " bytes";
  }
  if (c.node_sizes.size() > 4 &&
      c.node_sizes.compare(c.node_sizes.size() - 4, 4, "+...") == 0) {
    return "";  // truncated by DescribeLayout: not checked further
  }
  // Terms "size" or "size*count", sizes strictly decreasing.
  int64_t total = 0, nodes = 0, previous = INT64_MAX, first = 0, terms = 0;
  size_t i = 0;
  const std::string& s = c.node_sizes;
  auto number = [&](int64_t* v) {
    const size_t start = i;
    *v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 9) {
      *v = *v * 10 + (s[i++] - '0');
    }
    return i > start && *v > 0;
  };
  while (true) {
    int64_t size = 0, count = 1;
    if (!number(&size)) return "node_sizes '" + s + "' is not like 3+1 or 4*3+2";
    if (i < s.size() && s[i] == '*') {
      ++i;
      if (!number(&count)) return "node_sizes '" + s + "' is not like 3+1 or 4*3+2";
    }
    if (size >= previous) return "node_sizes '" + s + "' must list sizes largest first";
    if (terms++ == 0) first = size;
    previous = size;
    total += size * count;
    nodes += count;
    if (i == s.size()) break;
    if (s[i++] != '+') return "node_sizes '" + s + "' is not like 3+1 or 4*3+2";
  }
  if (terms < 2) return "node_sizes '" + s + "' names one size: leave it empty";
  if (c.comm_size > 0 && total != c.comm_size) {
    return "node_sizes '" + s + "' adds up to " + std::to_string(total) + ", not comm_size " +
           std::to_string(c.comm_size);
  }
  if (c.nodes > 0 && nodes != c.nodes) {
    return "node_sizes '" + s + "' has " + std::to_string(nodes) + " nodes, not " +
           std::to_string(c.nodes);
  }
  if (c.ppn > 0 && first != c.ppn) {
    return "node_sizes '" + s + "' starts at " + std::to_string(first) + ", not ppn " +
           std::to_string(c.ppn);
  }
  return "";
}

std::string LayoutText(const JobContext& c) {
  std::string out = c.node_sizes.empty()
                        ? std::to_string(c.nodes) + " x " + std::to_string(c.ppn)
                        : c.node_sizes + " on " + std::to_string(c.nodes) + " nodes";
  if (c.placement == kPlacementRoundRobin) out += ", round robin";
  if (c.placement == kPlacementScattered) out += ", scattered";
  return out;
}

}  // namespace colltune
