// Per-key token buckets (uploads per uid) and log lines limited to one per
// cause per period. Pure: callers pass the time in seconds.
#ifndef COLLTUNE_AUTH_RATE_LIMIT_H_
#define COLLTUNE_AUTH_RATE_LIMIT_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace colltune::auth {

// Each key owns a bucket of `per_minute` tokens, refilled continuously at
// per_minute/60 per second; a request takes one. A full bucket lets a burst
// of per_minute requests through, then the steady rate. per_minute <= 0:
// unlimited. Buckets that refilled completely are forgotten (memory stays
// bounded by the keys active within a minute).
class TokenBuckets {
 public:
  explicit TokenBuckets(double per_minute) : per_minute_(per_minute) {}
  // True if `key` may go on at time `now` (seconds, monotonic).
  bool Take(int64_t key, double now);
  size_t tracked() const;

 private:
  struct Bucket {
    double tokens;
    double at;
  };
  const double per_minute_;
  mutable std::mutex mu_;
  std::map<int64_t, Bucket> buckets_;
  double last_sweep_ = 0;
};

// ShouldLog(cause, now) is true at most once per `period` seconds per cause;
// *suppressed gets how many were held back since the last line.
class LogLimiter {
 public:
  explicit LogLimiter(double period = 60) : period_(period) {}
  bool ShouldLog(std::string_view cause, double now, int64_t* suppressed);

 private:
  struct Entry {
    double last = -1e300;
    int64_t suppressed = 0;
  };
  const double period_;
  std::mutex mu_;
  std::map<std::string, Entry, std::less<>> causes_;
};

}  // namespace colltune::auth

#endif  // COLLTUNE_AUTH_RATE_LIMIT_H_
