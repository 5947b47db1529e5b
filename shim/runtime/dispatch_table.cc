#include "shim/runtime/dispatch_table.h"

#include "shim/runtime/repairs.h"

namespace colltune::shim {

DispatchTable::DispatchTable(const Table& table) : table_(table) {
  for (int c = 0; c < kNumCollectives; ++c) {
    active_[c] = table_.forced[c].has_value() &&
                 *table_.forced[c] != Algorithm::kDefault;
    if (!table_.forced[c].has_value()) {
      repairs_[c] = MixedTypesRepair(static_cast<Collective>(c));
      if (repairs_[c] != Algorithm::kDefault) active_[c] = true;
    }
  }
  ranges_.resize(table_.sections.size());
  switches_.resize(table_.sections.size());
  for (size_t i = 0; i < table_.sections.size(); ++i) {
    // Section rules are sorted by (collective, min_bytes).
    for (const Rule& r : table_.sections[i].rules) {
      if (r.algorithm == Algorithm::kDefault && !r.Switches()) continue;
      Range range{r.min_bytes, r.max_bytes, r.algorithm};
      if (r.Switches()) {
        range.switches = true;
        range.loop = r.loop.value_or(r.algorithm);
        range.imbalance = r.imbalance.value_or(r.algorithm);
        switches_[i] = true;
      }
      ranges_[i].push_back(range);
      active_[IndexOf(r.collective)] = true;
    }
    for (const Rule& r : table_.sections[i].layout_rules) {
      if (r.algorithm != Algorithm::kDefault) active_[IndexOf(r.collective)] = true;
    }
  }
}

Algorithm LayoutSlice::Lookup(const LayoutKey& key, uint64_t bytes) const {
  const Rule* whole_class = nullptr;
  for (uint32_t i = 0; i < count; ++i) {
    const Rule& r = rules[i];
    if (r.layout.layout != key.layout || bytes < r.min_bytes || bytes > r.max_bytes) continue;
    if (r.layout.block_log2 == key.block_log2) return r.algorithm;
    if (r.layout.block_log2 < 0) whole_class = &r;
  }
  return whole_class ? whole_class->algorithm : Algorithm::kDefault;
}

Algorithm LayoutSlice::Choose(const LayoutKey& key, bool mixed, uint64_t bytes,
                              bool* shared) const {
  *shared = false;
  if (mixed) {
    const Algorithm a = Lookup(kMixedDataKey, bytes);
    if (a != Algorithm::kDefault) {
      *shared = true;
      return a;
    }
  }
  return IsRuleLayout(key) ? Lookup(key, bytes) : Algorithm::kDefault;
}

const Section* DispatchTable::SlicesFor(
    uint32_t comm_size, std::array<Slice, kNumCollectives>* slices,
    std::array<LayoutSlice, kNumCollectives>* layouts) const {
  *slices = {};
  *layouts = {};
  const Section* section = SelectSection(table_, comm_size);
  if (section == nullptr) return nullptr;
  const std::vector<Range>& ranges =
      ranges_[static_cast<size_t>(section - table_.sections.data())];
  size_t r = 0;
  for (const Rule& rule : section->rules) {
    if (rule.algorithm == Algorithm::kDefault && !rule.Switches()) continue;
    Slice& s = (*slices)[IndexOf(rule.collective)];
    if (s.count == 0) s.ranges = &ranges[r];
    ++s.count;
    ++r;
  }
  // Layout rules are sorted by collective first.
  for (const Rule& rule : section->layout_rules) {
    LayoutSlice& l = (*layouts)[IndexOf(rule.collective)];
    if (l.count == 0) l.rules = &rule;
    ++l.count;
  }
  return section;
}

}  // namespace colltune::shim
