#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "bench/options.h"

#include "shim/native/controls.h"

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

namespace {

// --launched-with: which collectives the whole-job choice covers, and
// whether the library really runs it (a launch without the MCA setting would
// store the library's default under the choice's name). The same verdict on
// every rank.
bool SetUpLaunchedWith(const Options& o, Bench* b) {
  const std::string name = std::string(kNativePrefix) + o.launched_with;
  std::vector<Collective> covered;
  std::string left_out;
  for (Collective c : b->collectives) {
    const std::optional<Algorithm> a = ParseAlgorithm(name, c);
    if (a && AtLaunchOnly(*a)) {
      b->launched_as[IndexOf(c)] = *a;
      covered.push_back(c);
    } else {
      left_out += (left_out.empty() ? "" : ", ") + std::string(InfoOf(c).name);
    }
  }
  b->collectives = covered;
  // coll/han runs where its priority beats coll/tuned's (both Open MPI MCA
  // variables, readable once MPI_Init has opened the coll framework).
  int enabled = 0;
  std::string why = "Open MPI's coll_han_priority cannot be read (not Open MPI?)";
  std::vector<std::string> notes;
  if (std::unique_ptr<shim::Controls> controls =
          shim::Controls::Open(MPI_THREAD_SINGLE, &notes)) {
    std::string values;
    if (std::optional<bool> han = shim::HanOutranksTuned(*controls, &values)) {
      enabled = *han ? 1 : 0;
      why = values + ": coll/han does not outrank coll/tuned";
    }
  }
  int everywhere = 0;
  PMPI_Allreduce(&enabled, &everywhere, 1, MPI_INT, MPI_MIN, b->comm);
  if (b->rank == 0) {
    if (!everywhere) {
      fprintf(stderr,
              "colltune-bench: --launched-with %s: the library does not run it (%s); "
              "launch with --mca coll_han_priority 100\n",
              o.launched_with.c_str(), why.c_str());
    } else if (covered.empty()) {
      fprintf(stderr, "colltune-bench: --launched-with %s covers none of the collectives "
                      "asked for\n", o.launched_with.c_str());
    } else if (!left_out.empty()) {
      fprintf(stderr, "colltune-bench: --launched-with %s: %s left out (%s does not "
                      "implement them)\n", o.launched_with.c_str(), left_out.c_str(),
              name.c_str());
    }
  }
  return everywhere && !covered.empty();
}

}  // namespace

bool SetUp(const Options& o, MPI_Comm comm, Bench* b) {
  b->comm = comm;
  PMPI_Comm_rank(comm, &b->rank);
  PMPI_Comm_size(comm, &b->size);
  b->root = o.root >= 0 ? o.root % b->size : RootOfLaunch(o.launch, b->size);
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
  for (const std::string& s : o.total_sizes) {
    int64_t bytes = 0;
    ParseSize(s, &bytes);
    b->total_sizes.push_back(bytes);
  }
  for (const std::string& s : o.datatype_sizes) {
    int64_t bytes = 0;
    ParseSize(s, &bytes);
    b->datatype_sizes.push_back(bytes);
  }
  for (const std::string& name : o.datatypes) {
    if (name == "grid") {
      for (const std::string& g : DatatypeGridNames()) b->datatypes.push_back(*ParseDatatypeSpec(g));
    } else {
      b->datatypes.push_back(*ParseDatatypeSpec(name));  // main.cc checked it
    }
  }
  for (const DatatypeSpec& spec : b->datatypes) {
    for (Collective c : {Collective::kGather, Collective::kScatter}) {
      if (LibraryRunsLayout(c, spec) || b->rank != 0 ||
          std::find(b->collectives.begin(), b->collectives.end(), c) == b->collectives.end()) {
        continue;
      }
      fprintf(stderr,
              "colltune-bench: %s @%s is not measured: this library's MPI_%s aborts on types "
              "mixing basic types; the shim runs every such call as %s_as_packed\n",
              std::string(InfoOf(c).name).c_str(), SpecName(spec).c_str(),
              c == Collective::kGather ? "Gather" : "Scatter", std::string(InfoOf(c).name).c_str());
    }
  }
  if (!o.launched_with.empty() && !SetUpLaunchedWith(o, b)) return false;
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
  b->env.nodes = &b->nodes;
  b->fixed_nrep = o.nrep == "auto" ? 0 : std::stoi(o.nrep);
  if (o.natives || o.list_algorithms) {
    std::vector<std::string> notes;
    b->natives = shim::NativeAlgorithms::DiscoverEverywhere(MPI_THREAD_SINGLE, comm, &notes);
    if (b->rank == 0) {
      for (const std::string& n : notes) fprintf(stderr, "colltune-bench: %s\n", n.c_str());
    }
    if (b->natives->control() != shim::NativeControl::kNone) {
      b->native_comms = std::make_unique<shim::NativeComms>(kNumNatives);
      b->env.natives = b->natives.get();
      b->env.native_comms = b->native_comms.get();
    } else {
      b->natives.reset();
    }
  }
  b->sync = o.sync == "window" ? WindowSync(comm, o.window_us * 1e-6)
                               : BarrierSync(comm);
  return shim::DetectContext(comm, &b->context) == MPI_SUCCESS;
}

int ListAlgorithms(const Bench& b) {
  if (b.rank != 0) return 0;
  printf("%-22s %-44s %s\n", "collective", "algorithm", "value");
  for (Collective c : b.collectives) {
    for (int a = 0; a < kNumAlgorithms; ++a) {
      const Algorithm alg = static_cast<Algorithm>(a);
      if (!Implements(alg, c) || IsNative(alg)) continue;
      // Seed 003's datatype forms are timed at the datatype grid's points
      // only (--datatypes).
      printf("%-22s %-44s %s\n", std::string(InfoOf(c).name).c_str(),
             std::string(InfoOf(alg).name).c_str(),
             IsDatatypeForm(alg) ? "- (at --datatypes points only)" : "-");
    }
    if (b.natives == nullptr) continue;
    for (const shim::NativeAlgorithms::Listed& l : b.natives->listed()) {
      if (l.collective != c) continue;
      const std::string name = std::string(kNativePrefix) + l.name;
      printf("%-22s %-44s %d%s\n", std::string(InfoOf(c).name).c_str(), name.c_str(),
             l.value,
             !l.id         ? " (unknown to colltune: not tuned)"
             : !l.settable ? " (the library refuses to set it at run time: not tuned)"
                           : "");
    }
    // colltune's segmented variants of the library's algorithms.
    for (int a = IndexOf(Algorithm::kFirstNative); a < kNumAlgorithms; ++a) {
      const AlgorithmInfo& info = InfoOf(static_cast<Algorithm>(a));
      if (info.collective != c || info.segment == 0 || !b.natives->Has(info.id)) continue;
      printf("%-22s %-44s %d, segment size %u\n", std::string(InfoOf(c).name).c_str(),
             std::string(info.name).c_str(), b.natives->ValueOf(info.id), info.segment);
    }
  }
  return 0;
}

std::vector<Algorithm> Runnable(const Workload& w) {
  std::vector<Algorithm> out;
  for (int a = 0; a < kNumAlgorithms; ++a) {
    const Algorithm alg = static_cast<Algorithm>(a);
    if (Implements(alg, w.collective()) && w.Eligible(alg)) out.push_back(alg);
  }
  return out;
}

std::vector<Algorithm> ForPoint(std::vector<Algorithm> runnable, bool datatype_grid) {
  std::vector<Algorithm> out;
  for (Algorithm a : runnable) {
    if (datatype_grid || !IsDatatypeForm(a)) out.push_back(a);
  }
  return out;
}

std::vector<Algorithm> ForLayoutRules(const std::vector<Algorithm>& runnable) {
  std::vector<Algorithm> out;
  for (Algorithm a : runnable) {
    if (a == Algorithm::kDefault || IsDatatypeForm(a)) out.push_back(a);
  }
  return out;
}

}  // namespace colltune::bench
