#include "bench/sync.h"

#include <sched.h>

#include <algorithm>

#include "bench/barrier.h"

namespace colltune::bench {
namespace {

class Barrier final : public Synchronizer {
 public:
  explicit Barrier(MPI_Comm comm) : comm_(comm) {}
  std::vector<double> Time(const std::function<void(int)>& run,
                           int count) override {
    std::vector<double> local(count), global(count);
    for (int k = 0; k < count; ++k) {
      DisseminationBarrier(comm_);
      const double t0 = PMPI_Wtime();
      run(k);
      local[k] = PMPI_Wtime() - t0;
    }
    PMPI_Allreduce(local.data(), global.data(), count, MPI_DOUBLE, MPI_MAX,
                   comm_);
    return global;
  }

 private:
  MPI_Comm comm_;
};

class Window final : public Synchronizer {
 public:
  static constexpr double kMaxWindow = 0.01;  // seconds
  Window(MPI_Comm comm, double window)
      : comm_(comm), window_(window), adaptive_(window <= 0) {
    PMPI_Comm_rank(comm_, &rank_);
    PMPI_Comm_size(comm_, &size_);
    SyncClocks();
  }

  std::vector<double> Time(const std::function<void(int)>& run,
                           int count) override {
    // Each batch of repetitions is its own workload: size the window to it.
    if (adaptive_) Calibrate(run);
    std::vector<double> latency(count, 0);
    std::vector<int> todo(count);
    for (int k = 0; k < count; ++k) todo[k] = k;
    while (!todo.empty()) {
      const int n = static_cast<int>(todo.size());
      // Rank 0 sets the schedule: slot i starts at start + i * window.
      double start = Now() + 4 * window_ + 100e-6;
      PMPI_Bcast(&start, 1, MPI_DOUBLE, 0, comm_);
      std::vector<double> local(n), global(n);
      std::vector<int> late(n), any_late(n);
      for (int i = 0; i < n; ++i) {
        const double slot = start + i * window_;
        if (Now() > slot) {
          late[i] = 1;
        } else {
          // Spin only near the start: on an oversubscribed node a spinning
          // rank would keep another from ever reaching its slot.
          while (Now() < slot) {
            if (slot - Now() > 50e-6) sched_yield();
          }
        }
        run(todo[i]);
        local[i] = Now() - slot;
      }
      PMPI_Allreduce(local.data(), global.data(), n, MPI_DOUBLE, MPI_MAX, comm_);
      PMPI_Allreduce(late.data(), any_late.data(), n, MPI_INT, MPI_MAX, comm_);
      // Late repetitions run again, in a wider window when many were late.
      // Past the widest window a node is too busy to keep its ranks on
      // schedule: their latencies are kept as measured, and counted.
      const bool widest = window_ >= kMaxWindow;
      std::vector<int> again;
      for (int i = 0; i < n; ++i) {
        if (any_late[i]) ++invalid_;
        if (any_late[i] && !widest) {
          again.push_back(todo[i]);
        } else {
          latency[todo[i]] = global[i];
        }
      }
      if (again.size() * 4 > todo.size()) {
        window_ = std::min(2 * window_, kMaxWindow);
      }
      todo.swap(again);
    }
    return latency;
  }

  long long invalid() const override { return invalid_; }

 private:
  double Now() const { return PMPI_Wtime() - offset_; }

  // Each rank's offset to rank 0's clock, from the ping-pong with the
  // smallest round trip (Cristian's method).
  void SyncClocks() {
    constexpr int kTag = 0x5ca2, kRounds = 20;
    std::vector<double> offsets(size_, 0);
    for (int r = 1; r < size_; ++r) {
      if (rank_ == 0) {
        double best_rtt = 1e9, best = 0;
        for (int i = 0; i < kRounds; ++i) {
          const double t0 = PMPI_Wtime();
          double remote = 0;
          PMPI_Send(&t0, 1, MPI_DOUBLE, r, kTag, comm_);
          PMPI_Recv(&remote, 1, MPI_DOUBLE, r, kTag, comm_, MPI_STATUS_IGNORE);
          const double t1 = PMPI_Wtime();
          if (t1 - t0 < best_rtt) {
            best_rtt = t1 - t0;
            best = remote - (t0 + t1) / 2;
          }
        }
        offsets[r] = best;
      } else if (rank_ == r) {
        for (int i = 0; i < kRounds; ++i) {
          double t0 = 0;
          PMPI_Recv(&t0, 1, MPI_DOUBLE, 0, kTag, comm_, MPI_STATUS_IGNORE);
          const double now = PMPI_Wtime();
          PMPI_Send(&now, 1, MPI_DOUBLE, 0, kTag, comm_);
        }
      }
    }
    PMPI_Scatter(offsets.data(), 1, MPI_DOUBLE, &offset_, 1, MPI_DOUBLE, 0,
                 comm_);
  }

  // The window: twice the slowest of a few barrier-synchronized runs.
  void Calibrate(const std::function<void(int)>& run) {
    double slowest = 0;
    for (int i = 0; i < 3; ++i) {
      DisseminationBarrier(comm_);
      const double t0 = PMPI_Wtime();
      run(0);
      slowest = std::max(slowest, PMPI_Wtime() - t0);
    }
    double agreed = 0;
    PMPI_Allreduce(&slowest, &agreed, 1, MPI_DOUBLE, MPI_MAX, comm_);
    window_ = std::max(2 * agreed, 10e-6);
  }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  double window_;
  const bool adaptive_;
  double offset_ = 0;
  long long invalid_ = 0;
};

}  // namespace

std::unique_ptr<Synchronizer> BarrierSync(MPI_Comm comm) {
  return std::make_unique<Barrier>(comm);
}

std::unique_ptr<Synchronizer> WindowSync(MPI_Comm comm, double window_seconds) {
  return std::make_unique<Window>(comm, window_seconds);
}

}  // namespace colltune::bench
