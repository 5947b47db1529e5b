#include "common/layout_class.h"

#include <charconv>

namespace colltune {
namespace {

// In the enum's order.
constexpr std::string_view kNames[kNumLayoutClasses] = {"contiguous", "tiled",  "indexed",
                                                         "struct",     "nested", "other"};

}  // namespace

std::string_view NameOf(LayoutClass layout) { return kNames[static_cast<int>(layout)]; }

std::optional<LayoutClass> ParseLayoutClass(std::string_view name) {
  for (int i = 0; i < kNumLayoutClasses; ++i) {
    if (kNames[i] == name) return static_cast<LayoutClass>(i);
  }
  return std::nullopt;
}

std::string FormatLayoutKey(const LayoutKey& key) {
  std::string out(NameOf(key.layout));
  if (key.block_log2 < 0) return out;
  const uint64_t block = uint64_t{1} << key.block_log2;
  return out + "/" + (block >= 1024 ? std::to_string(block / 1024) + "KiB"
                                    : std::to_string(block) + "B");
}

std::optional<LayoutKey> ParseLayoutKey(std::string_view text) {
  const size_t slash = text.find('/');
  const std::optional<LayoutClass> layout = ParseLayoutClass(text.substr(0, slash));
  if (!layout) return std::nullopt;
  LayoutKey key{*layout, -1};
  if (slash == std::string_view::npos) return key;
  std::string_view bucket = text.substr(slash + 1);
  uint64_t unit = 1;
  if (bucket.size() > 3 && bucket.substr(bucket.size() - 3) == "KiB") {
    unit = 1024;
    bucket.remove_suffix(3);
  } else if (bucket.size() > 1 && bucket.back() == 'B') {
    bucket.remove_suffix(1);
  } else {
    return std::nullopt;
  }
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(bucket.data(), bucket.data() + bucket.size(), n);
  if (ec != std::errc() || end != bucket.data() + bucket.size() || n == 0 ||
      (n & (n - 1)) != 0 || n > (uint64_t{1} << 40)) {
    return std::nullopt;
  }
  n *= unit;
  while (n > 1) {
    n >>= 1;
    ++key.block_log2;
  }
  ++key.block_log2;  // from -1: 1 byte is bucket 0
  return key;
}

std::string LayoutProblem(const LayoutKey& key) { return "@" + FormatLayoutKey(key); }

std::optional<LayoutKey> ParseLayoutProblem(std::string_view problem) {
  if (problem.empty() || problem[0] != '@') return std::nullopt;
  std::optional<LayoutKey> key = ParseLayoutKey(problem.substr(1));
  if (!key || !IsRuleLayout(*key)) return std::nullopt;
  return key;
}

}  // namespace colltune
