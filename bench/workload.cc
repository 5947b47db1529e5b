#include "bench/workload.h"

#include <cstring>

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"

namespace colltune::bench {
namespace {

constexpr int kRoot = 0;

template <class Call>
void Bind(const Call& call, const shim::CollEnv& env,
          std::function<bool(Algorithm)>* eligible,
          std::function<int(Algorithm)>* run) {
  *eligible = [call, env](Algorithm a) { return shim::Eligible(a, call, env); };
  *run = [call, env](Algorithm a) {
    shim::Outcome outcome;
    return shim::Execute(a, call, env, &outcome);
  };
}

}  // namespace

std::unique_ptr<Workload> Workload::Make(Collective c, int64_t requested,
                                         ReduceType reduce,
                                         const shim::CollEnv& env,
                                         std::optional<Problem> problem) {
  std::unique_ptr<Workload> w(new Workload);
  w->collective_ = c;
  const int64_t p = env.size;
  int elem = 0;
  PMPI_Type_size(reduce.type, &elem);
  const int block = static_cast<int>(requested);  // bytes of MPI_BYTE
  const int n = static_cast<int>((requested + elem - 1) / elem);  // reduction elements
  auto bytes_of = [&](int64_t b) {
    w->send_.assign(static_cast<size_t>(b) + 1, 1);
    w->recv_.assign(static_cast<size_t>(b) + 1, 0);
  };
  char* s = nullptr;
  char* r = nullptr;
  switch (c) {
    case Collective::kAllgather:
      w->bytes_ = block;
      bytes_of(p * block);
      s = w->send_.data(), r = w->recv_.data();
      Bind(shim::AllgatherCall{s, block, MPI_BYTE, r, block, MPI_BYTE}, env,
           &w->eligible_, &w->run_);
      break;
    case Collective::kAlltoall:
      w->bytes_ = block;
      bytes_of(p * block);
      s = w->send_.data(), r = w->recv_.data();
      Bind(shim::AlltoallCall{s, block, MPI_BYTE, r, block, MPI_BYTE}, env,
           &w->eligible_, &w->run_);
      break;
    case Collective::kBcast:
      w->bytes_ = block;
      bytes_of(block);
      Bind(shim::BcastCall{w->send_.data(), block, MPI_BYTE, kRoot}, env,
           &w->eligible_, &w->run_);
      break;
    case Collective::kGather:
      w->bytes_ = block;
      bytes_of(p * block);
      s = w->send_.data(), r = w->recv_.data();
      Bind(shim::GatherCall{s, block, MPI_BYTE, r, block, MPI_BYTE, kRoot}, env,
           &w->eligible_, &w->run_);
      break;
    case Collective::kScatter:
      w->bytes_ = block;
      bytes_of(p * block);
      s = w->send_.data(), r = w->recv_.data();
      Bind(shim::ScatterCall{s, block, MPI_BYTE, r, block, MPI_BYTE, kRoot},
           env, &w->eligible_, &w->run_);
      break;
    case Collective::kGatherv:
    case Collective::kScatterv: {
      w->bytes_ = block;
      // The same seed on every rank: all agree on every block's size.
      w->counts_ = problem ? BlockCounts(*problem, static_cast<int>(p), block,
                                         0x5eed0000u + static_cast<uint64_t>(block))
                           : std::vector<int>(p, block);
      w->displs_.resize(p);
      int64_t total = 0;
      for (int i = 0; i < p; ++i) {
        w->displs_[i] = static_cast<int>(total);
        total += w->counts_[i];
      }
      bytes_of(total);
      const int mine = w->counts_[env.rank];
      s = w->send_.data(), r = w->recv_.data();
      if (c == Collective::kGatherv) {
        Bind(shim::GathervCall{s, mine, MPI_BYTE, r, w->counts_.data(),
                               w->displs_.data(), MPI_BYTE, kRoot},
             env, &w->eligible_, &w->run_);
      } else {
        Bind(shim::ScattervCall{s, w->counts_.data(), w->displs_.data(),
                                MPI_BYTE, r, mine, MPI_BYTE, kRoot},
             env, &w->eligible_, &w->run_);
      }
      break;
    }
    case Collective::kAllreduce:
    case Collective::kReduce:
    case Collective::kScan:
      w->bytes_ = static_cast<int64_t>(n) * elem;
      bytes_of(w->bytes_);
      s = w->send_.data(), r = w->recv_.data();
      if (c == Collective::kAllreduce) {
        Bind(shim::AllreduceCall{s, r, n, reduce.type, reduce.op}, env,
             &w->eligible_, &w->run_);
      } else if (c == Collective::kReduce) {
        Bind(shim::ReduceCall{s, r, n, reduce.type, reduce.op, kRoot}, env,
             &w->eligible_, &w->run_);
      } else {
        Bind(shim::ScanCall{s, r, n, reduce.type, reduce.op}, env,
             &w->eligible_, &w->run_);
      }
      break;
    case Collective::kReduceScatterBlock:
      w->bytes_ = static_cast<int64_t>(n) * elem;
      bytes_of(p * w->bytes_);
      s = w->send_.data(), r = w->recv_.data();
      Bind(shim::ReduceScatterBlockCall{s, r, n, reduce.type, reduce.op}, env,
           &w->eligible_, &w->run_);
      break;
  }
  // Reduction buffers hold doubles; fill them with small exact values so
  // sums never overflow or denormalize.
  if (elem == 8) {
    for (size_t i = 0; i + 8 <= w->send_.size(); i += 8) {
      const double v = 1.0;
      memcpy(&w->send_[i], &v, 8);
    }
  }
  return w;
}

}  // namespace colltune::bench
