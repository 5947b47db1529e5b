#include "cli/tuning_file/han_rules.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace colltune::cli::tuning_file {
namespace {

// coll/han 4.1 reads collectives as COLLTYPE_T numbers (the order of
// colltune's collectives), the level as a TOPO_LVL_T number and components
// by name.
constexpr int kGlobalCommunicator = 2;
constexpr char kTuned[] = "tuned";
constexpr char kHan[] = "han";

}  // namespace

bool HanRulesChoose(Collective c) {
  return c == Collective::kBcast || c == Collective::kReduce || c == Collective::kBarrier;
}

std::vector<HanChoice> ChooseHan(const std::vector<HanPoint>& points, double margin) {
  // collective -> bytes -> han faster in every regime so far
  std::map<int, std::map<int64_t, bool>> wins;
  for (const HanPoint& p : points) {
    if (!HanRulesChoose(p.collective) || p.han_seconds <= 0) continue;
    const bool faster = p.default_seconds / p.han_seconds >= 1 + margin;
    auto [it, fresh] = wins[IndexOf(p.collective)].emplace(p.bytes, faster);
    if (!fresh) it->second = it->second && faster;
  }
  std::vector<HanChoice> out;
  for (const auto& [c, sizes] : wins) {
    HanChoice choice{static_cast<Collective>(c), {}};
    int64_t previous = -1;
    for (const auto& [bytes, han] : sizes) {
      const int64_t from =
          previous < 0 ? 0
                       : static_cast<int64_t>(std::ceil(std::sqrt(
                             static_cast<double>(std::max<int64_t>(previous, 1)) *
                             static_cast<double>(bytes))));
      if (choice.ranges.empty() || choice.ranges.back().second != han) {
        choice.ranges.emplace_back(choice.ranges.empty() ? 0 : from, han);
      }
      previous = bytes;
    }
    out.push_back(choice);
  }
  return out;
}

std::string HanRules(const std::vector<HanChoice>& choices, bool gather_to_tuned,
                     const std::string& header) {
  std::string text = header;
  const size_t n = choices.size() + (gather_to_tuned ? 1 : 0);
  text += std::to_string(n) + "  # collectives\n";
  auto collective = [&](Collective c, const std::vector<std::pair<int64_t, bool>>& ranges) {
    text += std::to_string(IndexOf(c)) + "  # " + std::string(InfoOf(c).name) + "\n";
    text += "1  # topological levels\n";
    text += std::to_string(kGlobalCommunicator) + "  # the whole communicator\n";
    text += "1  # configurations\n";
    text += "1  # from 1 process\n";
    text += std::to_string(ranges.size()) + "  # message sizes\n";
    for (const auto& [from, han] : ranges) {
      text += std::to_string(from) + " " + (han ? kHan : kTuned) + "  # from " +
              std::to_string(from) + " bytes\n";
    }
  };
  std::vector<HanChoice> all = choices;
  if (gather_to_tuned) all.push_back({Collective::kGather, {{0, false}}});
  std::sort(all.begin(), all.end(), [](const HanChoice& a, const HanChoice& b) {
    return IndexOf(a.collective) < IndexOf(b.collective);
  });
  for (const HanChoice& c : all) collective(c.collective, c.ranges);
  return text;
}

}  // namespace colltune::cli::tuning_file
