#include "common/regime.h"

#include <cstdio>
#include <cstdlib>

namespace colltune {

namespace {
// In the enum's order.
constexpr std::string_view kRegimeNames[kNumRegimes] = {"sync", "loop", "imbalance"};
}  // namespace

std::string_view NameOf(Regime r) { return kRegimeNames[IndexOf(r)]; }

std::optional<Regime> ParseRegime(std::string_view name) {
  if (name.empty()) return Regime::kSync;
  for (Regime r : kAllRegimes) {
    if (NameOf(r) == name) return r;
  }
  return std::nullopt;
}

namespace {

// Splits on `sep`; an empty text gives no items.
std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  if (text.empty()) return out;
  size_t start = 0;
  for (;;) {
    const size_t at = text.find(sep, start);
    out.push_back(text.substr(start, at == std::string_view::npos ? text.npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return out;
}

bool ParseNumber(std::string_view text, double* out) {
  if (text.empty() || text.size() > 40) return false;
  const std::string copy(text);
  char* end = nullptr;
  *out = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size();
}

}  // namespace

std::string FormatRegimeEvidence(const std::vector<RegimeEvidence>& evidence) {
  std::string out;
  for (const RegimeEvidence& e : evidence) {
    char item[96];
    snprintf(item, sizeof item, "%s:%.6g:%.6g:%d", std::string(NameOf(e.regime)).c_str(),
             e.speedup, e.p_value, e.won ? 1 : 0);
    if (!out.empty()) out += ",";
    out += item;
  }
  return out;
}

bool ParseRegimeEvidence(std::string_view text, std::vector<RegimeEvidence>* out) {
  std::vector<RegimeEvidence> parsed;
  RegimeSet seen = 0;
  for (std::string_view item : Split(text, ',')) {
    const std::vector<std::string_view> f = Split(item, ':');
    if (f.size() != 4 || f[0].empty()) return false;
    const std::optional<Regime> r = ParseRegime(f[0]);
    if (!r || (seen & Bit(*r))) return false;
    seen |= Bit(*r);
    RegimeEvidence e;
    e.regime = *r;
    if (!ParseNumber(f[1], &e.speedup) || !ParseNumber(f[2], &e.p_value)) return false;
    if (f[3] != "0" && f[3] != "1") return false;
    e.won = f[3] == "1";
    parsed.push_back(e);
  }
  *out = std::move(parsed);
  return true;
}

std::string FormatRegimeSet(RegimeSet set) {
  std::string out;
  for (Regime r : kAllRegimes) {
    if (!(set & Bit(r))) continue;
    if (!out.empty()) out += ",";
    out += NameOf(r);
  }
  return out;
}

bool ParseRegimeSet(std::string_view text, RegimeSet* out) {
  RegimeSet set = 0;
  for (std::string_view name : Split(text, ',')) {
    if (name.empty()) return false;
    const std::optional<Regime> r = ParseRegime(name);
    if (!r || (set & Bit(*r))) return false;
    set |= Bit(*r);
  }
  *out = set == 0 ? kSyncOnly : set;
  return true;
}

}  // namespace colltune
