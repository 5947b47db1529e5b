#include "cli/whole_job.h"

#include <map>
#include <optional>
#include <tuple>

namespace colltune::cli {

std::vector<WholeJobPoint> WholeJobPoints(const v1::GetProfileResponse& profile) {
  using Key = std::tuple<int, std::string, int64_t, int>;
  std::map<Key, double> def;
  std::vector<std::pair<Key, const v1::PointSummary*>> choices;
  for (const v1::PointSummary& p : profile.points()) {
    const std::optional<Collective> c = ParseCollective(p.collective());
    const std::optional<Regime> r = ParseRegime(p.regime().empty() ? "sync" : p.regime());
    const std::optional<Algorithm> a = c ? ParseAlgorithm(p.algorithm(), *c) : std::nullopt;
    if (!a || !r || p.median_seconds() <= 0) continue;
    const Key key{IndexOf(*c), p.problem(), p.msg_bytes(), static_cast<int>(*r)};
    if (*a == Algorithm::kDefault) {
      def[key] = p.median_seconds();
    } else if (AtLaunchOnly(*a)) {
      choices.emplace_back(key, &p);
    }
  }
  std::vector<WholeJobPoint> out;
  for (const auto& [key, p] : choices) {
    auto d = def.find(key);
    if (d == def.end()) continue;
    out.push_back({p->algorithm(), static_cast<Collective>(std::get<0>(key)), std::get<1>(key),
                   std::get<2>(key), static_cast<Regime>(std::get<3>(key)), d->second,
                   p->median_seconds()});
  }
  return out;
}

}  // namespace colltune::cli
