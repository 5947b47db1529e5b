// Scratch memory for mock-ups: one buffer per process, allocated on first
// need, grown to the largest need seen (never beyond the budget, because
// ineligible calls never ask), reused, and freed at MPI_Finalize.
//
// Under MPI_THREAD_MULTIPLE two threads may run mock-ups on different
// communicators at once. Waiting for the shared buffer could deadlock across
// ranks, and falling back to the default on one rank would break rank
// consistency, so a thread that finds the buffer taken gets a private
// allocation for the length of its call instead.
#ifndef COLLTUNE_SHIM_COLL_SCRATCH_H_
#define COLLTUNE_SHIM_COLL_SCRATCH_H_

#include <atomic>
#include <cstdint>

namespace colltune::shim {

class ScratchPool {
 public:
  ScratchPool() = default;
  ~ScratchPool();
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;

  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();
    // Null when the allocation failed (or for a zero-byte lease).
    void* data() const { return data_; }
    bool ok() const { return ok_; }

   private:
    friend class ScratchPool;
    Lease(ScratchPool* pool, void* data, bool shared, bool ok)
        : pool_(pool), data_(data), shared_(shared), ok_(ok) {}
    ScratchPool* pool_;
    void* data_;
    bool shared_;  // the pool's buffer, not a private allocation
    bool ok_;
  };

  // 64-byte aligned memory of at least `bytes` bytes for one call.
  Lease Acquire(uint64_t bytes);

  // Frees the pool's buffer; no lease may be outstanding.
  void Release();

  uint64_t capacity() const { return capacity_; }

 private:
  std::atomic<bool> busy_{false};
  void* buffer_ = nullptr;
  uint64_t capacity_ = 0;
};

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_SCRATCH_H_
