#include "cli/layouts.h"

#include <cstdint>
#include <numeric>

#include "absl/strings/str_join.h"

namespace colltune::cli {
namespace {

constexpr int kMaxProcesses = 1 << 24;

absl::Status Bad(const std::string& spec, const std::string& why) {
  return absl::InvalidArgumentError("--layouts: '" + spec + "' " + why +
                                    " (e.g. 2x2, 4x1, 3+1, 2x2:round_robin)");
}

// A decimal number in 1..kMaxProcesses, digits only.
bool Positive(const std::string& s, int* v) {
  if (s.empty() || s.size() > 8) return false;
  int64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  *v = static_cast<int>(n);
  return n > 0 && n <= kMaxProcesses;
}

}  // namespace

int LayoutSpec::np() const { return std::accumulate(sizes.begin(), sizes.end(), 0); }

bool LayoutSpec::regular() const {
  for (int s : sizes) {
    if (s != sizes.front()) return false;
  }
  return true;
}

absl::StatusOr<std::vector<LayoutSpec>> ParseLayouts(const std::vector<std::string>& specs) {
  std::vector<LayoutSpec> out;
  for (const std::string& spec : specs) {
    LayoutSpec l;
    l.text = spec;
    std::string shape = spec;
    if (const size_t colon = shape.find(':'); colon != std::string::npos) {
      const std::string placement = shape.substr(colon + 1);
      if (placement == "round_robin") {
        l.round_robin = true;
      } else if (placement != "block") {
        return Bad(spec, "places ranks by block or round_robin only");
      }
      shape = shape.substr(0, colon);
    }
    if (const size_t x = shape.find('x'); x != std::string::npos) {
      int nodes = 0, ppn = 0;
      if (!Positive(shape.substr(0, x), &nodes) || !Positive(shape.substr(x + 1), &ppn)) {
        return Bad(spec, "is not NODESxPROCESSES");
      }
      if (static_cast<int64_t>(nodes) * ppn > kMaxProcesses) return Bad(spec, "is too large");
      l.sizes.assign(nodes, ppn);
    } else {
      for (size_t start = 0;;) {
        const size_t plus = shape.find('+', start);
        int size = 0;
        if (!Positive(shape.substr(start, plus - start), &size)) {
          return Bad(spec, "is not a list of node sizes like 3+1");
        }
        l.sizes.push_back(size);
        if (plus == std::string::npos) break;
        start = plus + 1;
      }
      if (l.np() > kMaxProcesses) return Bad(spec, "is too large");
    }
    if (l.round_robin && !l.regular()) {
      return Bad(spec, "places ranks round robin over nodes of different sizes");
    }
    out.push_back(std::move(l));
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> MpirunPlacement(const LayoutSpec& layout,
                                                        const std::vector<std::string>& hosts,
                                                        bool mpich) {
  if (hosts.size() < layout.sizes.size()) {
    return absl::InvalidArgumentError(
        "--layouts " + layout.text + " needs " + std::to_string(layout.sizes.size()) +
        " hosts; --hosts names " + std::to_string(hosts.size()));
  }
  std::vector<std::string> slots;
  for (size_t i = 0; i < layout.sizes.size(); ++i) {
    // Hydra fills hosts in turn, `slots` ranks each: one slot per host
    // cycles the ranks over the nodes.
    const int slots_here = mpich && layout.round_robin ? 1 : layout.sizes[i];
    slots.push_back(hosts[i] + ":" + std::to_string(slots_here));
  }
  if (mpich) return std::vector<std::string>{"-hosts", absl::StrJoin(slots, ",")};
  std::vector<std::string> out = {"--host", absl::StrJoin(slots, ",")};
  if (layout.round_robin) out.insert(out.end(), {"--map-by", "node"});
  return out;
}

}  // namespace colltune::cli
