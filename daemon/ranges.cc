#include "daemon/ranges.h"

#include <algorithm>
#include <set>
#include <cmath>

namespace colltune::daemon {

void Weaken(Evidence* into, const Evidence& e) {
  into->p_value = std::max(into->p_value, e.p_value);
  into->launches_default = std::min(into->launches_default, e.launches_default);
  into->launches_algorithm = std::min(into->launches_algorithm, e.launches_algorithm);
  std::set<int64_t> campaigns(into->campaigns.begin(), into->campaigns.end());
  campaigns.insert(e.campaigns.begin(), e.campaigns.end());
  into->campaigns.assign(campaigns.begin(), campaigns.end());
  std::vector<RegimeEvidence> both;
  for (const RegimeEvidence& a : into->regimes) {
    for (const RegimeEvidence& b : e.regimes) {
      if (a.regime != b.regime) continue;
      both.push_back({a.regime, std::min(a.speedup, b.speedup),
                      std::max(a.p_value, b.p_value), a.won && b.won});
    }
  }
  into->regimes = std::move(both);
}

void Overlay(const Decision& top, std::vector<Decision>* decisions) {
  const Rule& t = top.rule;
  // A collective nothing decided yet still covers [0, inf): the sizes
  // around `top` run default, explicitly.
  bool any = false;
  for (const Decision& d : *decisions) any = any || d.rule.collective == t.collective;
  if (!any) {
    Decision whole;
    whole.rule.collective = t.collective;
    decisions->push_back(whole);
  }
  std::vector<Decision> out;
  for (Decision& d : *decisions) {
    const Rule& r = d.rule;
    if (r.collective != t.collective || r.max_bytes < t.min_bytes ||
        r.min_bytes > t.max_bytes) {
      out.push_back(d);
      continue;
    }
    if (r.min_bytes < t.min_bytes) {
      Decision left = d;
      left.rule.max_bytes = t.min_bytes - 1;
      out.push_back(left);
    }
    if (r.max_bytes > t.max_bytes) {
      Decision right = d;
      right.rule.min_bytes = t.max_bytes + 1;
      out.push_back(right);
    }
  }
  out.push_back(top);
  std::sort(out.begin(), out.end(), [](const Decision& a, const Decision& b) {
    return IndexOf(a.rule.collective) != IndexOf(b.rule.collective)
               ? IndexOf(a.rule.collective) < IndexOf(b.rule.collective)
               : a.rule.min_bytes < b.rule.min_bytes;
  });
  *decisions = std::move(out);
}

void Overlay(const PinnedRange& pin, std::vector<Decision>* decisions) {
  Decision p;
  p.rule.collective = pin.collective;
  p.rule.min_bytes = pin.min_bytes;
  p.rule.max_bytes = pin.max_bytes;
  p.rule.algorithm = pin.algorithm;
  p.rule.speedup = 0;  // not measured
  p.evidence.pinned = true;
  p.evidence.source = Source::kPin;
  Overlay(p, decisions);
}

void Merge(std::vector<Decision>* decisions) {
  std::vector<Decision> out;
  for (Decision& d : *decisions) {
    if (!out.empty()) {
      Decision& last = out.back();
      if (last.rule.collective == d.rule.collective &&
          last.rule.algorithm == d.rule.algorithm && last.rule.loop == d.rule.loop &&
          last.rule.imbalance == d.rule.imbalance &&
          last.evidence.source == d.evidence.source &&
          last.evidence.pinned == d.evidence.pinned &&
          last.rule.max_bytes != kNoUpperBound &&
          last.rule.max_bytes + 1 == d.rule.min_bytes) {
        last.rule.max_bytes = d.rule.max_bytes;
        Weaken(&last.evidence, d.evidence);
        continue;
      }
    }
    out.push_back(d);
  }
  *decisions = std::move(out);
}

Algorithm DecidedAt(const std::vector<Decision>& decisions, Collective c,
                    uint64_t bytes) {
  for (const Decision& d : decisions) {
    if (d.rule.collective == c && d.rule.min_bytes <= bytes &&
        bytes <= d.rule.max_bytes) {
      return d.rule.algorithm;
    }
  }
  return Algorithm::kDefault;
}

bool DecidedThroughout(const std::vector<Decision>& decisions, Collective c,
                       uint64_t lo, uint64_t hi, Algorithm a) {
  bool covered = false;
  for (const Decision& d : decisions) {
    if (d.rule.collective != c || d.rule.max_bytes < lo || d.rule.min_bytes > hi) {
      continue;
    }
    covered = true;
    if (d.rule.algorithm != a) return false;
  }
  return covered || a == Algorithm::kDefault;
}

std::string Range(const Rule& r) {
  return std::string(InfoOf(r.collective).name) +
         (IsRuleLayout(r.layout) ? "@" + FormatLayoutKey(r.layout) : std::string()) + " " +
         std::to_string(r.min_bytes) + "-" +
         (r.max_bytes == kNoUpperBound ? std::string("inf")
                                       : std::to_string(r.max_bytes));
}

}  // namespace colltune::daemon
