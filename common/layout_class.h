// Seed 003's datatype layouts, as a key of decision-table rules: the class of
// a derived datatype's memory layout and the size bucket of its smallest
// contiguous block (the shim finds both, shim/coll/datatype_class.h).
#ifndef COLLTUNE_COMMON_LAYOUT_CLASS_H_
#define COLLTUNE_COMMON_LAYOUT_CLASS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace colltune {

enum class LayoutClass : uint8_t {
  kContiguous,  // no gaps: predefined, contiguous, or elements size bytes
                // apart with nothing between
  kTiled,       // equal blocks at a constant stride, one level (vector,
                // hvector, a block resized to a larger extent)
  kIndexed,     // blocks at listed displacements (indexed, hindexed, indexed
                // block, a struct of one basic type)
  kStruct,      // several basic types (a heterogeneous struct)
  kNested,      // strided blocks of strided blocks (vector of vectors,
                // subarrays of two or more dimensions)
  kOther,       // none of these, or a type built on absolute addresses (its
                // meaning depends on MPI_BOTTOM): never changed by colltune
};
inline constexpr int kNumLayoutClasses = 6;

// "contiguous", "tiled", "indexed", "struct", "nested", "other".
std::string_view NameOf(LayoutClass layout);
std::optional<LayoutClass> ParseLayoutClass(std::string_view name);

// A rule's layout key: a class, and optionally one block-size bucket (blocks
// of 2^block_log2 to 2^(block_log2+1)-1 bytes). Written "tiled" or "tiled/8B".
struct LayoutKey {
  LayoutClass layout = LayoutClass::kContiguous;
  int8_t block_log2 = -1;  // -1: any block size

  bool operator==(const LayoutKey& o) const {
    return layout == o.layout && block_log2 == o.block_log2;
  }
};

// "tiled", "tiled/8B", "tiled/1KiB".
std::string FormatLayoutKey(const LayoutKey& key);
// The reverse; nullopt for an unknown class or a bucket that is not a power
// of two written in B or KiB.
std::optional<LayoutKey> ParseLayoutKey(std::string_view text);

// Rules may key on the layouts a derived datatype can have: not contiguous
// (the plain rules) and not other (never changed).
inline bool IsRuleLayout(const LayoutKey& key) {
  return key.layout != LayoutClass::kContiguous && key.layout != LayoutClass::kOther;
}

// The rules' key for data whose signature mixes basic types, whatever its
// layout: the whole `struct` class (shim/runtime/dispatch_table.h).
inline constexpr LayoutKey kMixedDataKey{LayoutClass::kStruct, -1};

// A campaign point measured with derived-datatype data names its layout as
// its problem (proto Measurement.problem): "@" and the key, "@tiled/8B".
std::string LayoutProblem(const LayoutKey& key);
// The reverse; nullopt unless `problem` is "@" and a key IsRuleLayout takes.
std::optional<LayoutKey> ParseLayoutProblem(std::string_view problem);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_LAYOUT_CLASS_H_
