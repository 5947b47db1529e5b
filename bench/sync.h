// How a repetition starts, and what its latency is (the maximum over ranks).
//
//  * Barrier (default): the benchmark's own dissemination barrier before
//    every repetition (seed 004, Algorithm 1); each rank times its call.
//  * Window (ReproMPI's window-based synchronization): rank clocks are
//    synchronized with rank 0's at start; every repetition gets a start time
//    on that global clock, one window after the previous one; each rank waits
//    for it, and a rank that arrives late invalidates the repetition, which is
//    run again (in a wider window if many were late, up to 10 ms; beyond that
//    they are kept and counted). A repetition's latency is the time from its
//    start to the end of the call. On an oversubscribed node (more ranks than
//    cores) no instant has every rank running: use the barrier there.
// Both return, on every rank, the same latencies: decisions taken from them
// (repetition counts) are then the same everywhere.
#ifndef COLLTUNE_BENCH_SYNC_H_
#define COLLTUNE_BENCH_SYNC_H_

#include <functional>
#include <memory>
#include <vector>

#include <mpi.h>

namespace colltune::bench {

class Synchronizer {
 public:
  virtual ~Synchronizer() = default;

  // Runs run(k) for k = 0..count-1 in that order, each as one repetition;
  // returns each one's latency, maximum over ranks, on every rank.
  virtual std::vector<double> Time(const std::function<void(int)>& run,
                                   int count) = 0;
  // Repetitions whose start some rank missed (window mode).
  virtual long long invalid() const { return 0; }
};

std::unique_ptr<Synchronizer> BarrierSync(MPI_Comm comm);
// `window_seconds` <= 0: sized from the first repetitions (twice the slowest
// seen, at least 10 us).
std::unique_ptr<Synchronizer> WindowSync(MPI_Comm comm, double window_seconds);

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_SYNC_H_
