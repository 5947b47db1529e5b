// The decision table in the form the hot path reads: for every section, per
// collective, the sorted byte ranges whose algorithm is not default or that
// switch by regime (gaps mean default). Built once at MPI_Init from the broadcast table and never changed,
// so every thread reads it without locks.
#ifndef COLLTUNE_SHIM_RUNTIME_DISPATCH_TABLE_H_
#define COLLTUNE_SHIM_RUNTIME_DISPATCH_TABLE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/catalog.h"
#include "common/table.h"

namespace colltune::shim {

struct Range {
  uint64_t lo, hi;  // inclusive
  Algorithm algorithm;
  // A regime switch (regime_switch.h): what calls found back to back or
  // after uneven work run; both `algorithm` where the rule has none.
  Algorithm loop = Algorithm::kDefault, imbalance = Algorithm::kDefault;
  bool switches = false;
};

// The ranges of one collective for one communicator.
struct Slice {
  const Range* ranges = nullptr;
  uint32_t count = 0;

  // The algorithm for a message of `bytes`, by binary search.
  Algorithm Lookup(uint64_t bytes) const {
    const uint32_t i = Find(bytes);
    return i < count ? ranges[i].algorithm : Algorithm::kDefault;
  }
  // The index of the range holding `bytes`, or `count` for none.
  uint32_t Find(uint64_t bytes) const {
    uint32_t lo = 0, hi = count;
    while (lo < hi) {  // first range with ranges[i].hi >= bytes
      uint32_t mid = (lo + hi) / 2;
      if (ranges[mid].hi < bytes) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return (lo < count && ranges[lo].lo <= bytes) ? lo : count;
  }
};

// The layout rules (@<layout>) of one collective for one communicator: where
// the plain rules leave the default, what a derived datatype of a layout runs.
struct LayoutSlice {
  const Rule* rules = nullptr;  // the section's layout_rules of the collective
  uint32_t count = 0;

  // The algorithm for data of layout `key` in a message of `bytes`: a rule of
  // the key's own block-size bucket first, else one of its whole class, else
  // default.
  Algorithm Lookup(const LayoutKey& key, uint64_t bytes) const;

  // The same for a call's data as the shim finds it, `mixed` if its signature
  // mixes basic types. Such data looks up the whole-class `struct` rules
  // first, whatever its own layout: the signature and `bytes` decide, and
  // both match between the ranks of a call, so every rank finds the same rule
  // and, where it names an algorithm, *shared is set (its mock-up may move
  // MPI_BYTEs, env.chosen_by_layout false). Otherwise the rank's own key
  // decides (Lookup; contiguous data none), and *shared is false: the
  // mock-up must keep the signature, as a rank may choose it alone. A rank
  // whose type the shim does not read (absolute addresses, darray) keeps
  // the library's call, and the others' bytes then meet its type, which a
  // library of one data representation accepts (as with repairs.h).
  Algorithm Choose(const LayoutKey& key, bool mixed, uint64_t bytes, bool* shared) const;
};

class DispatchTable {
 public:
  DispatchTable() = default;
  explicit DispatchTable(const Table& table);

  // Fills one slice and one layout slice per collective for a communicator of
  // `comm_size` processes (the section SelectSection picks); returns that
  // section or null.
  const Section* SlicesFor(uint32_t comm_size, std::array<Slice, kNumCollectives>* slices,
                           std::array<LayoutSlice, kNumCollectives>* layouts) const;

  const std::optional<Algorithm>& forced(Collective c) const {
    return table_.forced[IndexOf(c)];
  }
  // What calls of `c` the library gets wrong run (repairs.h's
  // MixedTypesRepair), unless COLLTUNE_FORCE names `c`; kDefault for none.
  Algorithm repair(Collective c) const { return repairs_[IndexOf(c)]; }
  // False when no communicator can run anything but default for `c`: the
  // wrapper then calls the library without looking at the communicator.
  bool Active(Collective c) const { return active_[IndexOf(c)]; }
  // Whether section `i` has a range that switches by regime.
  bool Switches(size_t i) const { return i < switches_.size() && switches_[i]; }
  bool SwitchesAnywhere() const {
    for (bool b : switches_) {
      if (b) return true;
    }
    return false;
  }
  const Table& table() const { return table_; }

 private:
  Table table_;
  // ranges_[i] holds section i's non-default ranges, grouped by collective.
  std::vector<std::vector<Range>> ranges_;
  std::array<bool, kNumCollectives> active_{};
  std::array<Algorithm, kNumCollectives> repairs_{};
  std::vector<bool> switches_;  // per section
};

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_DISPATCH_TABLE_H_
