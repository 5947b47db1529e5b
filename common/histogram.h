// The latency histogram that jobs report (shim) and the daemon reads: a log
// scale with 8 bins per octave of nanoseconds, so a bin is 6.7-12.5% wide,
// from 0 ns to about 2 minutes. Counters are added across calls, ranks and
// communicators without losing anything a median needs; a quantile is
// interpolated inside its bin. Header-only and free of dependencies: it is
// compiled into the shim.
#ifndef COLLTUNE_COMMON_HISTOGRAM_H_
#define COLLTUNE_COMMON_HISTOGRAM_H_

#include <cstdint>

namespace colltune::histogram {

inline constexpr int kSubBins = 8;   // per octave
inline constexpr int kMaxOctave = 36;  // 2^36 ns = 68.7 s: the last octave
// Bins 0..7 hold 0..7 ns exactly; octave e >= 3 (2^e..2^(e+1)-1 ns) has bins
// 8*(e-2) .. 8*(e-2)+7.
inline constexpr int kNumBins = kSubBins * (kMaxOctave - 2) + kSubBins;  // 280

// The bin of a latency of `ns` nanoseconds (times beyond the last octave go
// to the last bin).
inline int BinOf(uint64_t ns) {
  if (ns < 8) return static_cast<int>(ns);
  int e = 63 - __builtin_clzll(ns);
  if (e > kMaxOctave) return kNumBins - 1;
  const int m = static_cast<int>((ns >> (e - 3)) & 7);
  return kSubBins * (e - 2) + m;
}

// [BinLow(b), BinLow(b + 1)) is bin b's range in nanoseconds.
inline double BinLow(int b) {
  if (b < 8) return b;
  const int e = b / kSubBins + 2;
  const int m = b % kSubBins;
  return static_cast<double>(uint64_t{8 + static_cast<uint64_t>(m)} << (e - 3));
}

// The q-quantile (0 < q < 1) in nanoseconds of `count` bins starting at bin
// `first`, interpolated linearly inside the bin; 0 when they are empty.
template <class Count>
double Quantile(const Count* bins, int count, int first, double q) {
  double total = 0;
  for (int i = 0; i < count; ++i) total += static_cast<double>(bins[i]);
  if (total <= 0) return 0;
  const double target = q * total;
  double seen = 0;
  for (int i = 0; i < count; ++i) {
    const double n = static_cast<double>(bins[i]);
    if (n > 0 && seen + n >= target) {
      const double lo = BinLow(first + i), hi = BinLow(first + i + 1);
      return lo + (hi - lo) * ((target - seen) / n);
    }
    seen += n;
  }
  return BinLow(first + count);
}

// Message-size buckets of online statistics: bucket 0 holds 0 bytes, bucket
// b >= 1 holds [2^(b-1), 2^b - 1].
inline constexpr int kNumBuckets = 42;  // up to 2 TiB
inline int BucketOf(uint64_t bytes) {
  if (bytes == 0) return 0;
  const int b = 64 - __builtin_clzll(bytes);
  return b < kNumBuckets ? b : kNumBuckets - 1;
}
inline uint64_t BucketMin(int b) { return b == 0 ? 0 : uint64_t{1} << (b - 1); }
inline uint64_t BucketMax(int b) { return b == 0 ? 0 : (uint64_t{1} << b) - 1; }

}  // namespace colltune::histogram

#endif  // COLLTUNE_COMMON_HISTOGRAM_H_
