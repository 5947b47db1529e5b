// colltune-overhead: what the shim adds to a mock-up. For one mock-up,
// forced with COLLTUNE_FORCE under the preloaded shim, it times the
// intercepted collective (wrapper, dispatch, eligibility, scratch, copies,
// then the PMPI calls) against a hand-written composition of the same PMPI
// calls in this program, interleaved repetition by repetition in one run,
// and prints the ratio of the medians per message size.
//
//   mpirun -np 2 -x LD_PRELOAD=libcolltune.so
//       -x COLLTUNE_FORCE=allreduce=allreduce_as_reduce_bcast
//       colltune-overhead --algorithm allreduce_as_reduce_bcast
//
// The hand-written versions cover the benchmark's simple case only (dense
// MPI_BYTE blocks, MPI_DOUBLE sums, root 0, out of place, sizes that divide
// evenly), as a programmer would write them for it.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/barrier.h"
#include "common/catalog.h"
#include "common/stats.h"

namespace colltune::bench {
namespace {

// Temporaries of the hand-written versions are allocated as the shim's
// scratch pool allocates (posix_memalign, 64 bytes): the speed of a large copy
// here depends on the relative alignment of source and destination by 10-15%,
// which would otherwise be charged to the shim.
struct AlignedBytes {
  char* ptr = nullptr;
  void assign(size_t n, char value) {
    void* p = nullptr;
    if (posix_memalign(&p, 64, n) != 0) abort();
    ptr = static_cast<char*>(p);
    memset(ptr, value, n);
  }
  char* data() { return ptr; }
};

struct Buffers {
  int rank = 0, p = 1;
  int64_t bytes = 0;  // the message-size key
  std::vector<char> send, recv;  // the application's buffers
  AlignedBytes tmp;
  std::vector<int> counts, displs;
  MPI_Comm comm = MPI_COMM_WORLD;

  int n() const { return static_cast<int>(bytes / 8); }  // doubles
  int b() const { return static_cast<int>(bytes); }      // bytes
};

using Fn = std::function<void(Buffers&)>;

struct Case {
  Algorithm algorithm;
  Fn shim;         // the intercepted MPI call
  Fn handwritten;  // the same PMPI calls, written out
};

void EqualCounts(Buffers& s, int count) {
  for (int i = 0; i < s.p; ++i) {
    s.counts[i] = count;
    s.displs[i] = i * count;
  }
}

std::vector<Case> Cases() {
  const MPI_Comm W = MPI_COMM_WORLD;
  auto d = [](std::vector<char>& v) { return reinterpret_cast<double*>(v.data()); };
  return {
      {Algorithm::kAllgatherAsGatherBcast,
       [=](Buffers& s) { MPI_Allgather(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, W); },
       [=](Buffers& s) {
         PMPI_Gather(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, 0, W);
         PMPI_Bcast(s.recv.data(), s.b() * s.p, MPI_BYTE, 0, W);
       }},
      {Algorithm::kAllgatherAsAlltoall,
       [=](Buffers& s) { MPI_Allgather(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, W); },
       [=](Buffers& s) {
         for (int i = 0; i < s.p; ++i) memcpy(s.tmp.data() + i * s.bytes, s.send.data(), s.bytes);
         PMPI_Alltoall(s.tmp.data(), s.b(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, W);
       }},
      {Algorithm::kAllgatherAsAllreduce,
       [=](Buffers& s) { MPI_Allgather(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, W); },
       [=](Buffers& s) {
         memset(s.recv.data(), 0, s.bytes * s.p);
         memcpy(s.recv.data() + s.rank * s.bytes, s.send.data(), s.bytes);
         PMPI_Allreduce(MPI_IN_PLACE, s.recv.data(), s.b() * s.p, MPI_BYTE, MPI_BOR, W);
       }},
      {Algorithm::kAllgatherAsAllgatherv,
       [=](Buffers& s) { MPI_Allgather(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, W); },
       [=](Buffers& s) {
         EqualCounts(s, s.b());
         PMPI_Allgatherv(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.counts.data(), s.displs.data(), MPI_BYTE, W);
       }},
      {Algorithm::kAllreduceAsReduceBcast,
       [=](Buffers& s) { MPI_Allreduce(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM, W); },
       [=](Buffers& s) {
         PMPI_Reduce(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM, 0, W);
         PMPI_Bcast(s.recv.data(), s.n(), MPI_DOUBLE, 0, W);
       }},
      {Algorithm::kAllreduceAsReducescatterblockAllgather,
       [=](Buffers& s) { MPI_Allreduce(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM, W); },
       [=](Buffers& s) {
         const int blk = s.n() / s.p;
         PMPI_Reduce_scatter_block(s.send.data(), d(s.recv) + s.rank * blk, blk, MPI_DOUBLE, MPI_SUM, W);
         PMPI_Allgather(MPI_IN_PLACE, blk, MPI_DOUBLE, s.recv.data(), blk, MPI_DOUBLE, W);
       }},
      {Algorithm::kAllreduceAsReducescatterAllgatherv,
       [=](Buffers& s) { MPI_Allreduce(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM, W); },
       [=](Buffers& s) {
         EqualCounts(s, s.n() / s.p);
         PMPI_Reduce_scatter(s.send.data(), d(s.recv) + s.displs[s.rank], s.counts.data(), MPI_DOUBLE, MPI_SUM, W);
         PMPI_Allgatherv(MPI_IN_PLACE, s.counts[s.rank], MPI_DOUBLE, s.recv.data(), s.counts.data(), s.displs.data(), MPI_DOUBLE, W);
       }},
      {Algorithm::kAlltoallAsAlltoallv,
       [=](Buffers& s) { MPI_Alltoall(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, W); },
       [=](Buffers& s) {
         EqualCounts(s, s.b());
         PMPI_Alltoallv(s.send.data(), s.counts.data(), s.displs.data(), MPI_BYTE, s.recv.data(), s.counts.data(), s.displs.data(), MPI_BYTE, W);
       }},
      {Algorithm::kBcastAsAllgatherv,
       [=](Buffers& s) { MPI_Bcast(s.recv.data(), s.b(), MPI_BYTE, 0, W); },
       [=](Buffers& s) {
         for (int i = 0; i < s.p; ++i) s.counts[i] = i == 0 ? s.b() : 0, s.displs[i] = 0;
         PMPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, s.recv.data(), s.counts.data(), s.displs.data(), MPI_BYTE, W);
       }},
      {Algorithm::kBcastAsScatterAllgather,
       [=](Buffers& s) { MPI_Bcast(s.recv.data(), s.b(), MPI_BYTE, 0, W); },
       [=](Buffers& s) {
         const int blk = s.b() / s.p;
         PMPI_Scatter(s.recv.data(), blk, MPI_BYTE, s.rank == 0 ? MPI_IN_PLACE : s.recv.data() + s.rank * blk, blk, MPI_BYTE, 0, W);
         PMPI_Allgather(MPI_IN_PLACE, blk, MPI_BYTE, s.recv.data(), blk, MPI_BYTE, W);
       }},
      {Algorithm::kGatherAsAllgather,
       [=](Buffers& s) { MPI_Gather(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, 0, W); },
       [=](Buffers& s) {
         PMPI_Allgather(s.send.data(), s.b(), MPI_BYTE, s.rank == 0 ? s.recv.data() : s.tmp.data(), s.b(), MPI_BYTE, W);
       }},
      {Algorithm::kGatherAsGatherv,
       [=](Buffers& s) { MPI_Gather(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, 0, W); },
       [=](Buffers& s) {
         EqualCounts(s, s.b());
         PMPI_Gatherv(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.counts.data(), s.displs.data(), MPI_BYTE, 0, W);
       }},
      {Algorithm::kGatherAsReduce,
       [=](Buffers& s) { MPI_Gather(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, 0, W); },
       [=](Buffers& s) {
         memset(s.tmp.data(), 0, s.bytes * s.p);
         memcpy(s.tmp.data() + s.rank * s.bytes, s.send.data(), s.bytes);
         PMPI_Reduce(s.tmp.data(), s.recv.data(), s.b() * s.p, MPI_BYTE, MPI_BOR, 0, W);
       }},
      {Algorithm::kReduceAsAllreduce,
       [=](Buffers& s) { MPI_Reduce(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM, 0, W); },
       [=](Buffers& s) {
         PMPI_Allreduce(s.send.data(), s.rank == 0 ? s.recv.data() : s.tmp.data(), s.n(), MPI_DOUBLE, MPI_SUM, W);
       }},
      {Algorithm::kReduceAsReducescatterblockGather,
       [=](Buffers& s) { MPI_Reduce(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM, 0, W); },
       [=](Buffers& s) {
         const int blk = s.n() / s.p;
         PMPI_Reduce_scatter_block(s.send.data(), s.tmp.data(), blk, MPI_DOUBLE, MPI_SUM, W);
         PMPI_Gather(s.tmp.data(), blk, MPI_DOUBLE, s.recv.data(), blk, MPI_DOUBLE, 0, W);
       }},
      {Algorithm::kReduceAsReducescatterGatherv,
       [=](Buffers& s) { MPI_Reduce(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM, 0, W); },
       [=](Buffers& s) {
         EqualCounts(s, s.n() / s.p);
         PMPI_Reduce_scatter(s.send.data(), s.tmp.data(), s.counts.data(), MPI_DOUBLE, MPI_SUM, W);
         PMPI_Gatherv(s.tmp.data(), s.counts[s.rank], MPI_DOUBLE, s.recv.data(), s.counts.data(), s.displs.data(), MPI_DOUBLE, 0, W);
       }},
      {Algorithm::kReducescatterblockAsReduceScatter,
       [=](Buffers& s) { MPI_Reduce_scatter_block(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM, W); },
       [=](Buffers& s) {
         PMPI_Reduce(s.send.data(), s.tmp.data(), s.n() * s.p, MPI_DOUBLE, MPI_SUM, 0, W);
         PMPI_Scatter(s.tmp.data(), s.n(), MPI_DOUBLE, s.recv.data(), s.n(), MPI_DOUBLE, 0, W);
       }},
      {Algorithm::kReducescatterblockAsReducescatter,
       [=](Buffers& s) { MPI_Reduce_scatter_block(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM, W); },
       [=](Buffers& s) {
         EqualCounts(s, s.n());
         PMPI_Reduce_scatter(s.send.data(), s.recv.data(), s.counts.data(), MPI_DOUBLE, MPI_SUM, W);
       }},
      {Algorithm::kReducescatterblockAsAllreduce,
       [=](Buffers& s) { MPI_Reduce_scatter_block(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM, W); },
       [=](Buffers& s) {
         PMPI_Allreduce(s.send.data(), s.tmp.data(), s.n() * s.p, MPI_DOUBLE, MPI_SUM, W);
         memcpy(s.recv.data(), s.tmp.data() + s.rank * s.bytes, s.bytes);
       }},
      {Algorithm::kScanAsExscanReducelocal,
       [=](Buffers& s) { MPI_Scan(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM, W); },
       [=](Buffers& s) {
         PMPI_Exscan(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM, W);
         if (s.rank == 0) {
           memcpy(s.recv.data(), s.send.data(), s.bytes);
         } else {
           PMPI_Reduce_local(s.send.data(), s.recv.data(), s.n(), MPI_DOUBLE, MPI_SUM);
         }
       }},
      {Algorithm::kScatterAsBcast,
       [=](Buffers& s) { MPI_Scatter(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, 0, W); },
       [=](Buffers& s) {
         char* all = s.rank == 0 ? s.send.data() : s.tmp.data();
         PMPI_Bcast(all, s.b() * s.p, MPI_BYTE, 0, W);
         memcpy(s.recv.data(), all + s.rank * s.bytes, s.bytes);
       }},
      {Algorithm::kScatterAsScatterv,
       [=](Buffers& s) { MPI_Scatter(s.send.data(), s.b(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, 0, W); },
       [=](Buffers& s) {
         EqualCounts(s, s.b());
         PMPI_Scatterv(s.send.data(), s.counts.data(), s.displs.data(), MPI_BYTE, s.recv.data(), s.b(), MPI_BYTE, 0, W);
       }},
  };
}

}  // namespace
}  // namespace colltune::bench

int main(int argc, char** argv) {
  using namespace colltune;
  using namespace colltune::bench;
  MPI_Init(&argc, &argv);
  Buffers s;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.p);
  std::string name;
  int nrep = 300;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--algorithm")) name = argv[i + 1];
    if (!strcmp(argv[i], "--nrep")) nrep = atoi(argv[i + 1]);
  }
  std::vector<Case> cases = Cases();
  const Case* c = nullptr;
  for (const Case& k : cases) {
    if (InfoOf(k.algorithm).name == name) c = &k;
  }
  if (c == nullptr || nrep < 3) {
    if (s.rank == 0) {
      fprintf(stderr, "usage: colltune-overhead --algorithm NAME [--nrep N]\n");
    }
    MPI_Finalize();
    return 2;
  }
  const int64_t max = int64_t{1} << 20;
  s.send.assign(max * s.p, 1);
  s.recv.assign(max * s.p, 0);
  s.tmp.assign(max * s.p, 0);
  s.counts.resize(s.p);
  s.displs.resize(s.p);
  for (size_t i = 0; i + 8 <= s.send.size(); i += 8) {
    const double one = 1.0;
    memcpy(&s.send[i], &one, 8);
  }
  if (s.rank == 0) {
    printf("%-44s %9s %12s %12s %8s\n", "algorithm", "bytes", "shim_us",
           "handwritten_us", "ratio");
  }
  // Sizes divisible by 8 * p for every p up to 16.
  for (int64_t bytes : {1024, 4096, 16384, 65536, 262144, 1048576}) {
    s.bytes = bytes;
    std::vector<double> t_shim, t_hand;
    for (int i = 0; i < nrep + 5; ++i) {
      double local[2];
      // Alternate which runs first, so that neither always follows the
      // other's traffic.
      for (int k = 0; k < 2; ++k) {
        const int which = (i + k) % 2;
        DisseminationBarrier(MPI_COMM_WORLD);
        const double t0 = PMPI_Wtime();
        (which == 0 ? c->shim : c->handwritten)(s);
        local[which] = PMPI_Wtime() - t0;
      }
      double slowest[2];
      PMPI_Allreduce(local, slowest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (i >= 5) {  // warm-up repetitions are not counted
        t_shim.push_back(slowest[0]);
        t_hand.push_back(slowest[1]);
      }
    }
    if (s.rank == 0) {
      const double a = Median(t_shim), b = Median(t_hand);
      printf("%-44s %9lld %12.2f %12.2f %8.3f\n",
             std::string(InfoOf(c->algorithm).name).c_str(),
             static_cast<long long>(bytes), a * 1e6, b * 1e6, a / b);
    }
  }
  MPI_Finalize();
  return 0;
}
