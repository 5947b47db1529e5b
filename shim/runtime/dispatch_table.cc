#include "shim/runtime/dispatch_table.h"

namespace colltune::shim {

DispatchTable::DispatchTable(const Table& table) : table_(table) {
  for (int c = 0; c < kNumCollectives; ++c) {
    active_[c] = table_.forced[c].has_value() &&
                 *table_.forced[c] != Algorithm::kDefault;
  }
  ranges_.resize(table_.sections.size());
  for (size_t i = 0; i < table_.sections.size(); ++i) {
    // Section rules are sorted by (collective, min_bytes).
    for (const Rule& r : table_.sections[i].rules) {
      if (r.algorithm == Algorithm::kDefault) continue;
      ranges_[i].push_back(Range{r.min_bytes, r.max_bytes, r.algorithm});
      active_[IndexOf(r.collective)] = true;
    }
  }
}

const Section* DispatchTable::SlicesFor(
    uint32_t comm_size, std::array<Slice, kNumCollectives>* slices) const {
  *slices = {};
  const Section* section = SelectSection(table_, comm_size);
  if (section == nullptr) return nullptr;
  const std::vector<Range>& ranges =
      ranges_[static_cast<size_t>(section - table_.sections.data())];
  size_t r = 0;
  for (const Rule& rule : section->rules) {
    if (rule.algorithm == Algorithm::kDefault) continue;
    Slice& s = (*slices)[IndexOf(rule.collective)];
    if (s.count == 0) s.ranges = &ranges[r];
    ++s.count;
    ++r;
  }
  return section;
}

}  // namespace colltune::shim
