#include "auth/rate_limit.h"

#include <algorithm>

namespace colltune::auth {

bool TokenBuckets::Take(int64_t key, double now) {
  if (per_minute_ <= 0) return true;
  std::lock_guard<std::mutex> lock(mu_);
  const double rate = per_minute_ / 60.0;
  if (now - last_sweep_ > 60) {
    for (auto it = buckets_.begin(); it != buckets_.end();) {
      const double full = it->second.tokens + (now - it->second.at) * rate;
      it = full >= per_minute_ ? buckets_.erase(it) : std::next(it);
    }
    last_sweep_ = now;
  }
  auto [it, fresh] = buckets_.try_emplace(key, Bucket{per_minute_, now});
  Bucket& b = it->second;
  if (!fresh) {
    b.tokens = std::min(per_minute_, b.tokens + std::max(0.0, now - b.at) * rate);
    b.at = std::max(b.at, now);
  }
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

size_t TokenBuckets::tracked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return buckets_.size();
}

bool LogLimiter::ShouldLog(std::string_view cause, double now,
                           int64_t* suppressed) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = causes_.find(cause);
  if (it == causes_.end()) it = causes_.emplace(std::string(cause), Entry{}).first;
  Entry& e = it->second;
  if (now - e.last < period_) {
    ++e.suppressed;
    return false;
  }
  if (suppressed != nullptr) *suppressed = e.suppressed;
  e.suppressed = 0;
  e.last = now;
  return true;
}

}  // namespace colltune::auth
