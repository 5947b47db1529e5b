#include "bench/workload.h"

#include <algorithm>
#include <cstring>

#include "shim/coll/algorithm.h"
#include "shim/coll/calls.h"
#include "shim/coll/datatype_class.h"

namespace colltune::bench {
namespace {

// The same seed on every rank: all agree on every block's size.
std::vector<int> Counts(std::optional<Problem> problem, int p, int64_t b, uint64_t salt) {
  return problem ? BlockCounts(*problem, p, b, 0x5eed0000u + static_cast<uint64_t>(b) + salt)
                 : std::vector<int>(p, static_cast<int>(b));
}

// The distribution's shape with blocks summing to exactly `total` (the
// remainder of the proportional share goes to the first ranks), so every
// distribution of a point has the same size key.
std::vector<int> CountsSummingTo(std::optional<Problem> problem, int p, int64_t total) {
  std::vector<int> shape = Counts(problem, p, std::max<int64_t>(1, total / p), 0);
  int64_t sum = 0;
  for (int c : shape) sum += c;
  std::vector<int> out(p);
  int64_t given = 0;
  for (int i = 0; i < p; ++i) {
    out[i] = static_cast<int>(sum == 0 ? 0 : shape[i] * total / sum);
    given += out[i];
  }
  for (int i = 0; given < total; i = (i + 1) % p, ++given) ++out[i];
  return out;
}

std::vector<int> Displacements(const std::vector<int>& counts, int64_t* total) {
  std::vector<int> displs(counts.size());
  int64_t at = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    displs[i] = static_cast<int>(at);
    at += counts[i];
  }
  *total = at;
  return displs;
}

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
                                         std::optional<Problem> problem, int root) {
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
      Bind(shim::BcastCall{w->send_.data(), block, MPI_BYTE, root}, env,
           &w->eligible_, &w->run_);
      break;
    case Collective::kGather:
      w->bytes_ = block;
      bytes_of(p * block);
      s = w->send_.data(), r = w->recv_.data();
      Bind(shim::GatherCall{s, block, MPI_BYTE, r, block, MPI_BYTE, root}, env,
           &w->eligible_, &w->run_);
      break;
    case Collective::kScatter:
      w->bytes_ = block;
      bytes_of(p * block);
      s = w->send_.data(), r = w->recv_.data();
      Bind(shim::ScatterCall{s, block, MPI_BYTE, r, block, MPI_BYTE, root},
           env, &w->eligible_, &w->run_);
      break;
    case Collective::kBarrier:
      w->bytes_ = 0;
      Bind(shim::BarrierCall{}, env, &w->eligible_, &w->run_);
      break;
    case Collective::kAllgatherv: {
      w->counts_ = CountsSummingTo(problem, static_cast<int>(p), requested);
      int64_t total = 0;
      w->displs_ = Displacements(w->counts_, &total);
      w->bytes_ = total;
      bytes_of(total);
      s = w->send_.data(), r = w->recv_.data();
      Bind(shim::AllgathervCall{s, w->counts_[env.rank], MPI_BYTE, r, w->counts_.data(),
                                w->displs_.data(), MPI_BYTE},
           env, &w->eligible_, &w->run_);
      break;
    }
    case Collective::kReduceScatter: {
      w->counts_ = CountsSummingTo(problem, static_cast<int>(p), n);
      w->bytes_ = static_cast<int64_t>(n) * elem;
      bytes_of(w->bytes_);
      s = w->send_.data(), r = w->recv_.data();
      Bind(shim::ReduceScatterCall{s, r, w->counts_.data(), reduce.type, reduce.op}, env,
           &w->eligible_, &w->run_);
      break;
    }
    case Collective::kAlltoallv:
    case Collective::kAlltoallw: {
      w->bytes_ = block;
      // Rank i's row is the distribution drawn for i; its receive counts are
      // the column: what each rank sends it.
      w->counts_.assign(p, 0);
      w->rcounts_.assign(p, 0);
      for (int i = 0; i < p; ++i) {
        const std::vector<int> row = Counts(problem, static_cast<int>(p), block, i);
        if (i == env.rank) w->counts_ = row;
        w->rcounts_[i] = row[env.rank];
      }
      int64_t sent = 0, received = 0;
      w->displs_ = Displacements(w->counts_, &sent);
      w->rdispls_ = Displacements(w->rcounts_, &received);
      w->send_.assign(static_cast<size_t>(sent) + 1, 1);
      w->recv_.assign(static_cast<size_t>(received) + 1, 0);
      s = w->send_.data(), r = w->recv_.data();
      if (c == Collective::kAlltoallv) {
        Bind(shim::AlltoallvCall{s, w->counts_.data(), w->displs_.data(), MPI_BYTE, r,
                                 w->rcounts_.data(), w->rdispls_.data(), MPI_BYTE},
             env, &w->eligible_, &w->run_);
      } else {
        w->types_.assign(p, MPI_BYTE);  // byte displacements = element ones
        Bind(shim::AlltoallwCall{s, w->counts_.data(), w->displs_.data(), w->types_.data(),
                                 r, w->rcounts_.data(), w->rdispls_.data(),
                                 w->types_.data()},
             env, &w->eligible_, &w->run_);
      }
      break;
    }
    case Collective::kGatherv:
    case Collective::kScatterv: {
      w->bytes_ = block;
      w->counts_ = Counts(problem, static_cast<int>(p), block, 0);
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
                               w->displs_.data(), MPI_BYTE, root},
             env, &w->eligible_, &w->run_);
      } else {
        Bind(shim::ScattervCall{s, w->counts_.data(), w->displs_.data(),
                                MPI_BYTE, r, mine, MPI_BYTE, root},
             env, &w->eligible_, &w->run_);
      }
      break;
    }
    case Collective::kAllreduce:
    case Collective::kReduce:
    case Collective::kScan:
    case Collective::kExscan:
      w->bytes_ = static_cast<int64_t>(n) * elem;
      bytes_of(w->bytes_);
      s = w->send_.data(), r = w->recv_.data();
      if (c == Collective::kExscan) {
        Bind(shim::ExscanCall{s, r, n, reduce.type, reduce.op}, env, &w->eligible_,
             &w->run_);
      } else if (c == Collective::kAllreduce) {
        Bind(shim::AllreduceCall{s, r, n, reduce.type, reduce.op}, env,
             &w->eligible_, &w->run_);
      } else if (c == Collective::kReduce) {
        Bind(shim::ReduceCall{s, r, n, reduce.type, reduce.op, root}, env,
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

Workload::~Workload() {
  if (derived_ != MPI_DATATYPE_NULL) PMPI_Type_free(&derived_);
}

std::unique_ptr<Workload> Workload::MakeDerived(Collective c, int64_t requested,
                                                const DatatypeSpec& spec,
                                                shim::CollEnv env, int root) {
  if (!HasDatatypeForms(c)) return nullptr;
  std::unique_ptr<Workload> w(new Workload);
  w->collective_ = c;
  int count = 0;
  const size_t p = static_cast<size_t>(env.size);
  // Allgatherv's size is all blocks together (its key), the others' a block.
  const MPI_Datatype t = w->derived_ = MakeDatatype(
      spec, c == Collective::kAllgatherv ? requested / env.size : requested, &count);
  int size = 0;
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_size(t, &size);
  PMPI_Type_get_extent(t, &lb, &extent);
  w->bytes_ = static_cast<int64_t>(count) * size * (c == Collective::kAllgatherv ? env.size : 1);
  // Data whose signature mixes basic types is keyed by its whole class: the
  // rules every rank of a call finds alike (shim/runtime/dispatch_table.h).
  const shim::DatatypeClass k = shim::ClassOf(t);
  const bool mixed = k.Mixed();
  w->layout_problem_ = LayoutProblem(mixed ? kMixedDataKey : k.Key());
  const size_t span = static_cast<size_t>(count) * static_cast<size_t>(extent);
  const bool sends_p = c == Collective::kScatter || c == Collective::kAlltoall ||
                       c == Collective::kScatterv || c == Collective::kAlltoallv;
  const bool receives_one = c == Collective::kScatter || c == Collective::kScatterv;
  w->send_.assign(span * (sends_p ? p : 1), 1);
  w->recv_.assign(c == Collective::kBcast ? 0 : span * (receives_one ? 1 : p), 0);
  // The v-variants' blocks: equal, back to back.
  w->counts_.assign(p, count);
  w->displs_.resize(p);
  for (size_t i = 0; i < p; ++i) w->displs_[i] = static_cast<int>(i) * count;
  int* counts = w->counts_.data();
  int* displs = w->displs_.data();
  char* s = w->send_.data();
  char* r = w->recv_.data();
  // A table's layout rule picks the packed form on each rank from its own
  // type, and it then keeps the type signature; for data mixing basic types
  // every rank finds the same rule, and the form moves bytes: what a job
  // would run.
  env.chosen_by_layout = !mixed;
  switch (c) {
    case Collective::kBcast:
      Bind(shim::BcastCall{s, count, t, root}, env, &w->eligible_, &w->run_);
      break;
    case Collective::kAllgather:
      Bind(shim::AllgatherCall{s, count, t, r, count, t}, env, &w->eligible_, &w->run_);
      break;
    case Collective::kGather:
      Bind(shim::GatherCall{s, count, t, r, count, t, root}, env, &w->eligible_, &w->run_);
      break;
    case Collective::kScatter:
      Bind(shim::ScatterCall{s, count, t, r, count, t, root}, env, &w->eligible_, &w->run_);
      break;
    case Collective::kAlltoall:
      Bind(shim::AlltoallCall{s, count, t, r, count, t}, env, &w->eligible_, &w->run_);
      break;
    case Collective::kGatherv:
      Bind(shim::GathervCall{s, count, t, r, counts, displs, t, root}, env, &w->eligible_,
           &w->run_);
      break;
    case Collective::kScatterv:
      Bind(shim::ScattervCall{s, counts, displs, t, r, count, t, root}, env, &w->eligible_,
           &w->run_);
      break;
    case Collective::kAllgatherv:
      Bind(shim::AllgathervCall{s, count, t, r, counts, displs, t}, env, &w->eligible_,
           &w->run_);
      break;
    case Collective::kAlltoallv:
      Bind(shim::AlltoallvCall{s, counts, displs, t, r, counts, displs, t}, env,
           &w->eligible_, &w->run_);
      break;
    default:
      return nullptr;
  }
  return w;
}

}  // namespace colltune::bench
