#include "shim/coll/scratch.h"

#include <cstdlib>
#include <utility>

namespace colltune::shim {
namespace {

void* AllocateAligned(uint64_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, 64, bytes) != 0) return nullptr;
  return p;
}

}  // namespace

ScratchPool::~ScratchPool() { Release(); }

ScratchPool::Lease::Lease(Lease&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)),
      data_(std::exchange(other.data_, nullptr)),
      shared_(std::exchange(other.shared_, false)),
      ok_(other.ok_) {}

ScratchPool::Lease::~Lease() {
  if (pool_ == nullptr) return;
  if (shared_) {
    pool_->busy_.store(false, std::memory_order_release);
  } else {
    free(data_);
  }
}

ScratchPool::Lease ScratchPool::Acquire(uint64_t bytes) {
  if (bytes == 0) return Lease(nullptr, nullptr, false, true);
  if (busy_.exchange(true, std::memory_order_acquire)) {
    void* p = AllocateAligned(bytes);
    return Lease(this, p, false, p != nullptr);
  }
  if (capacity_ < bytes) {
    free(buffer_);
    buffer_ = AllocateAligned(bytes);
    capacity_ = buffer_ ? bytes : 0;
  }
  return Lease(this, buffer_, true, buffer_ != nullptr);
}

void ScratchPool::Release() {
  free(buffer_);
  buffer_ = nullptr;
  capacity_ = 0;
}

}  // namespace colltune::shim
