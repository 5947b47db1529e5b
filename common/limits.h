// Size limits of the gRPC contract (proto/colltune.proto). colltuned rejects a
// request that exceeds any of them; clients split their uploads to stay below.
#ifndef COLLTUNE_COMMON_LIMITS_H_
#define COLLTUNE_COMMON_LIMITS_H_

#include <cstdint>

namespace colltune::limits {

inline constexpr int kMaxRequestBytes = 16 << 20;  // whole serialized request
inline constexpr int kMaxNameLength = 128;         // cluster, library, labels
inline constexpr int kMaxCommSize = 1 << 24;
inline constexpr int64_t kMaxMessageBytes = int64_t{1} << 40;
inline constexpr int kMaxMeasurementsPerUpload = 4096;
inline constexpr int kMaxSamplesPerMeasurement = 100000;
inline constexpr int kMaxSamplesPerUpload = 1000000;
inline constexpr double kMaxSampleSeconds = 3600.0;
inline constexpr int kMaxLaunches = 1000;
inline constexpr int kMaxTimingsPerReport = 4096;
// ReportJobRequest.counted: 71 counted names (common/counted.h: 49 calls and
// 22 kinds of persistent start) x 42 size buckets.
inline constexpr int kMaxCountedPerReport = 71 * 42;
inline constexpr int64_t kMaxCalls = int64_t{1} << 50;
inline constexpr double kMaxReportSeconds = 1e9;
inline constexpr int kMaxRulesPerSection = 4096;
inline constexpr int kMaxSectionsPerTable = 64;
inline constexpr int kMaxJobReportsListed = 1000;  // ListJobReports.limit

}  // namespace colltune::limits

#endif  // COLLTUNE_COMMON_LIMITS_H_
