#include <map>
#include <string>

#include "bench/options.h"

namespace colltune::bench {

bool ParseSize(const std::string& text, int64_t* bytes) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (...) {
    return false;
  }
  const std::string suffix = text.substr(used);
  int shift = 0;
  if (suffix == "K" || suffix == "k" || suffix == "KiB") {
    shift = 10;
  } else if (suffix == "M" || suffix == "m" || suffix == "MiB") {
    shift = 20;
  } else if (!suffix.empty() && suffix != "B") {
    return false;
  }
  if (v < 0 || v > (int64_t{256} << 20) >> shift) return false;
  *bytes = static_cast<int64_t>(v) << shift;
  return true;
}

bool SetUp(const Options& o, MPI_Comm comm, Bench* b) {
  b->comm = comm;
  PMPI_Comm_rank(comm, &b->rank);
  PMPI_Comm_size(comm, &b->size);
  for (const std::string& name : o.collectives) {
    b->collectives.push_back(*ParseCollective(name));
  }
  for (const std::string& s : o.sizes) {
    int64_t bytes = 0;
    ParseSize(s, &bytes);
    b->sizes.push_back(bytes);
  }
  for (const std::string& s : o.irregular_sizes) {
    int64_t bytes = 0;
    ParseSize(s, &bytes);
    b->irregular_sizes.push_back(bytes);
  }
  const std::map<std::string, ReduceType> reduce_types = {
      {"double", {MPI_DOUBLE, MPI_SUM}},
      {"int", {MPI_INT, MPI_SUM}},
      {"byte", {MPI_UNSIGNED_CHAR, MPI_BOR}}};
  b->reduce = reduce_types.at(o.reduce_type);
  int64_t budget = 0;
  ParseSize(o.mem_bytes, &budget);
  b->env.comm = comm;
  b->env.rank = b->rank;
  b->env.size = b->size;
  b->env.mem_budget = static_cast<uint64_t>(budget);
  b->env.scratch = &b->scratch;
  b->env.p2p = &b->p2p;
  b->fixed_nrep = o.nrep == "auto" ? 0 : std::stoi(o.nrep);
  b->sync = o.sync == "window" ? WindowSync(comm, o.window_us * 1e-6)
                               : BarrierSync(comm);
  return shim::DetectContext(comm, &b->context) == MPI_SUCCESS;
}

std::vector<Algorithm> Runnable(const Workload& w) {
  std::vector<Algorithm> out;
  for (int a = 0; a < kNumAlgorithms; ++a) {
    const Algorithm alg = static_cast<Algorithm>(a);
    if (Implements(alg, w.collective()) && w.Eligible(alg)) out.push_back(alg);
  }
  return out;
}

}  // namespace colltune::bench
