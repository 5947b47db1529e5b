#include "shim/runtime/runtime.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <string>
#include <vector>

#include "common/heap.h"
#include "common/layout.h"
#include "common/quirks.h"
#include "common/table.h"
#include "shim/coll/datatype_class.h"
#include "shim/runtime/agent.h"
#include "shim/runtime/config.h"
#include "shim/runtime/context.h"
#include "shim/runtime/counted.h"
#include "shim/runtime/log.h"
#include "shim/runtime/repairs.h"
#include "shim/runtime/table_source.h"

namespace colltune::shim {
namespace {

// Guards the broadcast at MPI_Init against a rank that is not running the
// same shim (a mismatch would otherwise be misread as a table).
constexpr uint64_t kInitMagic = 0x636f6c6c74756e32ULL;  // "colltun2"

enum class Kinds { kAll, kMockups, kNatives };

// "name=count, ..." of the algorithms of the kinds asked for.
std::string Summary(const std::array<uint64_t, kNumAlgorithms>& counts,
                    Kinds kinds = Kinds::kAll) {
  std::string out;
  for (int a = 1; a < kNumAlgorithms; ++a) {
    const bool native = IsNative(static_cast<Algorithm>(a));
    if (counts[a] == 0 || (kinds == Kinds::kMockups && native) ||
        (kinds == Kinds::kNatives && !native)) {
      continue;
    }
    if (!out.empty()) out += ", ";
    out += std::string(InfoOf(static_cast<Algorithm>(a)).name) + "=" +
           std::to_string(counts[a]);
  }
  return out.empty() ? "none" : out;
}

std::string ForcedList(const Table& t) {
  std::string out;
  for (int c = 0; c < kNumCollectives; ++c) {
    if (!t.forced[c]) continue;
    if (!out.empty()) out += ",";
    out += std::string(InfoOf(static_cast<Collective>(c)).name) + "=" +
           std::string(InfoOf(*t.forced[c]).name);
  }
  return out;
}

// The broadcast form of the observing settings: every rank must agree on
// them, or exploration would choose differently on different ranks.
ObserveSettings ObserveFrom(const Config& c) {
  ObserveSettings o;
  if (!c.report || !(c.sample > 0)) return o;
  o.mean_gap = static_cast<uint32_t>(std::min(1e6, std::max(1.0, std::round(1 / c.sample))));
  if (c.explore > 0 && !c.reproducible) {
    // A burst of kBurst calls starts every explore_every events of a bucket:
    // rounded so the budget is never exceeded (and at most one burst per
    // event).
    const double every = kBurst / (c.explore * o.mean_gap);
    o.explore_every = static_cast<uint32_t>(std::min(1e9, std::max(1.0, std::ceil(every - 1e-9))));
  }
  o.explore_min_calls = c.explore_min_calls;
  return o;
}

// What exploring leaves out in a flat job, for rank 0's "online:" line.
const char* FlatJobNote(bool flat, const JobContext& context) {
  if (!flat) return "";
  return context.nodes <= 1 ? ", hierarchical mock-ups left out (one node)"
                            : ", hierarchical mock-ups left out (one process per node)";
}

// Rank 0's part of MPI_Init: settings and table, as the bytes to broadcast.
void PrepareOnRoot(const JobContext& context, int thread_level, uint64_t* mem_budget,
                   std::string* text, std::string* source,
                   ObserveSettings* observe, ReportPlan* plan) {
  Config config = ReadConfig();
  for (const std::string& e : config.errors) LogError("%s", e.c_str());
  AcquiredTable acquired = AcquireTable(config, context);
  for (const std::string& r : RepairLibraryDefects(context, thread_level, &acquired.table)) {
    LogInfo(1, "repair: %s", r.c_str());
  }
  if (acquired.table.reproducible) config.reproducible = true;
  if (config.reproducible) {
    LogInfo(1, "reproducible: no exploration; every call runs what this table says");
  }
  for (const std::string& note : acquired.table.notes) {
    LogInfo(1, "table: %s", note.c_str());
  }
  *mem_budget = config.mem_bytes;
  *text = FormatTable(acquired.table);
  *source = acquired.source;
  *observe = ObserveFrom(config);
  *plan = MakeReportPlan(config.spool_dir, FindAgent(config.agent), config.server,
                         !config.tls_ca.empty(), config.timeout_ms, config.job_id,
                         config.report && observe->enabled());
  plan->interval_s = config.report_interval_s;
}

bool NamesNatives(const Table& t) {
  for (const auto& f : t.forced) {
    if (f && IsNative(*f)) return true;
  }
  for (const Section& s : t.sections) {
    for (const Rule& r : s.rules) {
      if (IsNative(r.algorithm)) return true;
    }
  }
  return false;
}

// The native algorithms a table names, if any: asks the library which it
// has (collective over `world`: every rank has the same table, so all or
// none of them get here) and turns every native choice the running library
// cannot take into default, saying so once per algorithm on rank 0.
std::unique_ptr<NativeAlgorithms> PrepareNatives(Table* table, const JobContext& context,
                                                 int thread_level, MPI_Comm world,
                                                 bool root) {
  if (!NamesNatives(*table)) return nullptr;
  std::vector<std::string> notes;
  std::unique_ptr<NativeAlgorithms> natives;
  // The library comes from the broadcast table and context: the same on
  // every rank, so all ranks or none discover.
  const bool foreign = !table->library.empty() && table->library != context.library;
  if (!foreign) natives = NativeAlgorithms::DiscoverEverywhere(thread_level, world, &notes);
  if (root) {
    for (const std::string& note : notes) LogInfo(2, "%s", note.c_str());
    if (foreign) {
      LogInfo(1,
              "the table's native algorithms are %s's; under %s they are not "
              "applied (those ranges run the default)",
              table->library.c_str(), context.library.c_str());
    }
  }
  std::array<bool, kNumAlgorithms> noted{};
  auto keep = [&](Algorithm a, Collective c) {
    if (!IsNative(a) || (natives && natives->Has(a))) return true;
    if (root && !foreign && !noted[IndexOf(a)]) {
      noted[IndexOf(a)] = true;
      LogInfo(1,
              "%s %s is not available under %s %s (COLLTUNE_VERBOSE=2 says why); "
              "%s keeps the default",
              std::string(InfoOf(c).name).c_str(), std::string(InfoOf(a).name).c_str(),
              context.library.c_str(), context.library_version.c_str(),
              std::string(InfoOf(c).name).c_str());
    }
    return false;
  };
  // A library defect (common/quirks.h) confines an algorithm to the forms
  // of calls it gets right: said once, the default runs the rest.
  auto confined = [&](Algorithm a, Collective c, bool forced) {
    if (!root || !natives || noted[IndexOf(a)]) return;
    const uint8_t forms = natives->QuirkForms(a);
    if (forms == 0) return;
    noted[IndexOf(a)] = true;
    const std::string what = std::string(InfoOf(c).name) + "=" + std::string(InfoOf(a).name);
    const std::string where = QuirkFormNames(forms);
    if (forced) {
      LogError("COLLTUNE_FORCE %s is refused where %s %s's own algorithm is wrong (%s; "
               "`colltune quirks` says why); those calls run the library's default",
               what.c_str(), context.library.c_str(), context.library_version.c_str(),
               where.c_str());
    } else {
      LogInfo(1, "the table's %s runs the default where %s %s's own algorithm is wrong "
              "(%s; `colltune quirks` says why)", what.c_str(), context.library.c_str(),
              context.library_version.c_str(), where.c_str());
    }
  };
  for (int c = 0; c < kNumCollectives; ++c) {
    auto& f = table->forced[c];
    if (f && !keep(*f, static_cast<Collective>(c))) f = Algorithm::kDefault;
    if (f) confined(*f, static_cast<Collective>(c), true);
  }
  for (Section& s : table->sections) {
    for (Rule& r : s.rules) {
      if (!keep(r.algorithm, r.collective)) r.algorithm = Algorithm::kDefault;
      confined(r.algorithm, r.collective, false);
    }
  }
  if (natives && natives->control() == NativeControl::kNone) natives.reset();
  return natives;
}

}  // namespace

std::atomic<Runtime*> Runtime::current_{nullptr};
std::array<std::atomic<uint8_t>, kNumCollectives> Runtime::modes_{};

void Runtime::PublishModes() const {
  for (int i = 0; i < kNumCollectives; ++i) {
    const Collective c = static_cast<Collective>(i);
    Mode mode = kPass;
    if (Active(c)) {
      const std::optional<Algorithm>& f = table_.forced(c);
      mode = f && IsNative(*f) && natives_ != nullptr && natives_->Unchecked(*f) &&
                     !Exploring()
                 ? kForced
                 : kDispatch;
    } else if (c == Collective::kBarrier && table_.SwitchesAnywhere()) {
      mode = kDispatch;  // the regime switch notes barriers (Slow)
    } else if (Exploring()) {
      mode = kExplore;
    } else if (Observing()) {
      mode = kSample;
    }
    modes_[i].store(mode, std::memory_order_relaxed);
  }
  // Counted collectives (counted.h): only when the job reports.
  counted::on.store(Observing() ? 1 : 0, std::memory_order_relaxed);
}

void Runtime::NoteDirect(CommState& s, Collective c) const {
  const std::optional<Algorithm>& f = table_.forced(c);
  if (!f || !s.intra || s.env.natives == nullptr) return;
  // Execute's direct path would take this shadow, on every later call: it
  // exists only where the algorithm can run on this communicator.
  const MPI_Comm shadow = s.env.natives->UncheckedShadowOf(*f, s.env.native_comms);
  if (shadow == MPI_COMM_NULL) return;
  s.direct[IndexOf(c)] = CommState::Direct{shadow, &s.runs[IndexOf(*f)]};
}

void Runtime::ClearModes() {
  for (auto& mode : modes_) mode.store(kPass, std::memory_order_relaxed);
  counted::on.store(0, std::memory_order_relaxed);
}
std::atomic<uint64_t> Runtime::epoch_{1};

Runtime::Runtime(DispatchTable table, std::unique_ptr<NativeAlgorithms> natives,
                 uint64_t mem_budget, MPI_Comm world, int keyval)
    : table_(std::move(table)),
      natives_(std::move(natives)),
      mem_budget_(mem_budget),
      world_(world),
      keyval_(keyval) {
  PMPI_Comm_rank(world_, &world_rank_);
}

Runtime::~Runtime() = default;

std::string Runtime::PrepareHeap() {
  if (DisabledByEnvironment()) return "";
  if (!HeapFixedByEnvironment()) return "as the job has it";
  return FixHeap();
}

void Runtime::Start(int thread_level, const std::string& heap) {
  SetVerboseLevel(VerboseFromEnvironment());
  int world_rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  if (DisabledByEnvironment()) {
    if (world_rank == 0) LogInfo(1, "disabled by COLLTUNE_DISABLE");
    return;
  }
  if (world_rank == 0) LogInfo(1, "heap %s", heap.c_str());
  try {
    const double t0 = PMPI_Wtime();
    // Our own communicator, so nothing we send can match an application
    // message or collective.
    MPI_Comm world;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &world) != MPI_SUCCESS) return;
    JobContext context;
    std::string layout_note;
    if (DetectContext(world, &context, &layout_note) != MPI_SUCCESS) {
      PMPI_Comm_free(&world);
      return;
    }
    uint64_t mem_budget = 0;
    std::string text, source;
    ObserveSettings observe;
    ReportPlan plan;
    if (world_rank == 0) {
      PrepareOnRoot(context, thread_level, &mem_budget, &text, &source, &observe, &plan);
    }

    // Rank 0 alone knows the nodes (DetectContext).
    const bool flat = context.nodes <= 1 || context.ppn <= 1;
    uint64_t header[7] = {kInitMagic,       mem_budget,
                          text.size(),      observe.mean_gap,
                          observe.explore_every, observe.explore_min_calls,
                          flat ? 1u : 0u};
    if (PMPI_Bcast(header, 7, MPI_UINT64_T, 0, world) != MPI_SUCCESS ||
        header[0] != kInitMagic || header[2] > kMaxTableTextBytes) {
      PMPI_Comm_free(&world);
      return;
    }
    text.resize(header[2]);
    if (PMPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_BYTE, 0,
                   world) != MPI_SUCCESS) {
      PMPI_Comm_free(&world);
      return;
    }
    // Every rank parses the same bytes, so every rank holds the same table.
    Table table;
    std::string error;
    if (!ParseTable(text, &table, &error)) {
      if (world_rank == 0) LogError("internal table error: %s", error.c_str());
      table = Table();
    }
    std::unique_ptr<NativeAlgorithms> natives =
        PrepareNatives(&table, context, thread_level, world, world_rank == 0);
    int keyval = MPI_KEYVAL_INVALID;
    Runtime* rt = new (std::nothrow) Runtime(DispatchTable(table), std::move(natives),
                                             header[1], world, MPI_KEYVAL_INVALID);
    if (rt == nullptr ||
        PMPI_Comm_create_keyval(&NoCopy, &Runtime::DeleteAttribute,
                                &keyval, rt) != MPI_SUCCESS) {
      delete rt;
      PMPI_Comm_free(&world);
      return;
    }
    rt->keyval_ = keyval;
    if (header[3] > 0) clock::Calibrate();
    rt->observe_.mean_gap = static_cast<uint32_t>(header[3]);
    rt->observe_.explore_every = static_cast<uint32_t>(header[4]);
    rt->observe_.explore_min_calls = header[5];
    rt->flat_job_ = header[6] != 0;
    rt->plan_ = plan;
    rt->context_ = context;
    if (world_rank == 0 && rt->observe_.enabled() && plan.enabled &&
        thread_level != MPI_THREAD_MULTIPLE) {
      if (plan.interval_s > 0) {
        rt->snapshot_interval_ns_ =
            static_cast<uint64_t>(plan.interval_s) * 1000000000u;
        rt->snapshot_due_ns_ = clock::MonotonicNs() + rt->snapshot_interval_ns_;
      }
    }
    epoch_.fetch_add(1, std::memory_order_acq_rel);
    counted::Reset();
    current_.store(rt, std::memory_order_release);
    rt->PublishModes();
    if (rt->natives_ != nullptr && rt->natives_->shadows_at_start_only()) {
      rt->MakeStartShadows(table);
    }
    if (world_rank == 0) {
      std::string forced = ForcedList(table);
      LogInfo(1,
              "table from %s: %zu sections, %zu rules%s%s; scratch budget %llu "
              "bytes; %s %s on %d processes, %d nodes (%s); init %.1f ms",
              source.c_str(), table.sections.size(), table.RuleCount(),
              forced.empty() ? "" : "; forced ", forced.c_str(),
              static_cast<unsigned long long>(header[1]),
              context.library.c_str(), context.library_version.c_str(),
              context.comm_size, context.nodes, LayoutText(context).c_str(),
              (PMPI_Wtime() - t0) * 1e3);
      if (!layout_note.empty()) LogInfo(1, "node layout: %s", layout_note.c_str());
      if (rt->observe_.enabled()) {
        LogInfo(1,
                "online: timing 1 call in %u, exploring %s; reports of job '%s' "
                "to %s",
                rt->observe_.mean_gap,
                rt->observe_.explore_every
                    ? ("1 event in " + std::to_string(rt->observe_.explore_every) +
                       " of buckets past " +
                       std::to_string(rt->observe_.explore_min_calls) + " calls" +
                       FlatJobNote(rt->flat_job_, context))
                          .c_str()
                    : "nothing",
                plan.job_id.c_str(), plan.spool_dir.c_str());
      }
    }
  } catch (...) {
    // Out of memory while reading a table: run as if there were none.
    ClearModes();
    current_.store(nullptr, std::memory_order_release);
  }
}

void Runtime::MakeStartShadows(const Table& table) {
  CommState* s = StateOf(MPI_COMM_WORLD);
  if (s == nullptr) return;
  std::vector<Algorithm> wanted;
  for (const auto& f : table.forced) {
    if (f && IsNative(*f)) wanted.push_back(*f);
  }
  if (s->section != nullptr) {
    for (const Rule& r : s->section->rules) {
      if (IsNative(r.algorithm)) wanted.push_back(r.algorithm);
    }
  }
  // The same table on every rank: the same shadows, made in the same order
  // (Get returns one made already, and refuses on every rank once full).
  for (Algorithm a : wanted) {
    const int only = InfoOf(a).only_size;
    if (!natives_->Has(a) || (only != 0 && only != s->env.size)) continue;
    MPI_Comm shadow = MPI_COMM_NULL;
    s->native_comms.Get(*natives_, a, MPI_COMM_WORLD, &shadow);
  }
}

void Runtime::Deliver(const FinalDelivery& delivery) {
  try {
    const std::string line = DeliverFinalReport(delivery);
    if (!line.empty()) LogInfo(1, "finalize: %s", line.c_str());
  } catch (...) {
    // Out of memory: the job ends without its report.
  }
}

FinalDelivery Runtime::Stop() {
  ClearModes();
  Runtime* rt = current_.exchange(nullptr, std::memory_order_acq_rel);
  if (rt == nullptr) return {};
  epoch_.fetch_add(1, std::memory_order_acq_rel);
  // Deleting our attribute runs DeleteAttribute, which folds the counters.
  std::vector<MPI_Comm> comms;
  {
    std::lock_guard<std::mutex> lock(rt->mu_);
    for (CommState* s = rt->live_; s != nullptr; s = s->next) {
      comms.push_back(s->env.comm);
    }
  }
  for (MPI_Comm comm : comms) PMPI_Comm_delete_attr(comm, rt->keyval_);
  AbandonUnary(&rt->snapshot_call_);
  FinalDelivery delivery;
  if (rt->observe_.enabled()) {
    // Collective over the shim's communicator: every rank is here.
    std::vector<uint64_t> counts(counted::kCells);
    counted::Read(counts.data());
    delivery = GatherFinalReport(rt->world_, rt->totals_, counts.data(), rt->plan_,
                                 rt->context_, rt->table_.table());
  }
  if (rt->world_rank_ == 0) {
    LogInfo(1,
            "finalize: rank 0 ran mock-ups: %s; native algorithms: %s; chosen but "
            "not eligible: %s",
            Summary(rt->total_runs_, Kinds::kMockups).c_str(),
            Summary(rt->total_runs_, Kinds::kNatives).c_str(),
            Summary(rt->total_ineligible_).c_str());
    if (!rt->datatypes_seen_.empty()) {
      std::string seen;
      for (const std::string& d : rt->datatypes_seen_) seen += (seen.empty() ? "" : ", ") + d;
      LogInfo(1,
              "finalize: rank 0's sampled calls with derived datatypes (seed 003's "
              "layouts; campaigns measure contiguous data): %s",
              seen.c_str());
    }
  }
  PMPI_Comm_free_keyval(&rt->keyval_);
  PMPI_Comm_free(&rt->world_);
  rt->scratch_.Release();
  delete rt;
  return delivery;
}

CommState* Runtime::StateOfSlow(MPI_Comm comm) {
  const uint64_t epoch = epoch_.load(std::memory_order_acquire);
  CommState* s = Lookup(comm);
  if (s != nullptr) tls_last_ = LastComm{comm, s, epoch, s->observer.get()};
  return s;
}

CommState* Runtime::Lookup(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return nullptr;
  void* value = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, keyval_, &value, &found) != MPI_SUCCESS) {
    return nullptr;
  }
  return found ? static_cast<CommState*>(value) : Create(comm);
}

CommState* Runtime::Create(MPI_Comm comm) {
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return nullptr;
  CommState* s = new (std::nothrow) CommState;
  if (s == nullptr) return nullptr;
  s->intra = !inter;
  s->env.inter = inter != 0;
  s->env.comm = comm;
  PMPI_Comm_rank(comm, &s->env.rank);
  PMPI_Comm_size(comm, &s->env.size);
  s->env.mem_budget = mem_budget_;
  s->env.scratch = &scratch_;
  s->env.p2p = &s->p2p;
  s->env.nodes = &s->nodes;
  if (natives_ != nullptr) {
    s->env.natives = natives_.get();
    s->env.native_comms = &s->native_comms;
  }
  if (s->intra) {
    s->section =
        table_.SlicesFor(static_cast<uint32_t>(s->env.size), &s->slices, &s->layouts);
  }
  if (s->section != nullptr) {
    const ptrdiff_t index = s->section - table_.table().sections.data();
    if (index >= 0 && index < kNoSection) s->section_index = static_cast<int>(index);
  }
  if (observe_.enabled()) {
    s->observer.reset(new (std::nothrow) CommObserver(observe_));
  }
  if (s->section_index != kNoSection && table_.Switches(static_cast<size_t>(s->section_index))) {
    s->regimes.reset(new (std::nothrow) RegimeSwitch(s->slices, comm, s->env.rank));
  }
  if (PMPI_Comm_set_attr(comm, keyval_, s) != MPI_SUCCESS) {
    delete s;
    return nullptr;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    s->next = live_;
    if (live_ != nullptr) live_->prev = s;
    live_ = s;
  }
  if (s->env.rank == 0 && VerboseLevel() >= 2) {
    std::string section = "no section";
    if (s->section != nullptr) {
      section = "section " +
                (s->section->comm_size ? std::to_string(s->section->comm_size)
                                       : std::string("*")) +
                " (" + std::to_string(s->section->rules.size()) + " rules)";
    }
    LogInfo(2, "communicator of %d processes%s: %s", s->env.size,
            s->intra ? "" : " (inter-communicator, default only)",
            section.c_str());
  }
  return s;
}

void Runtime::Forget(CommState* s) {
  epoch_.fetch_add(1, std::memory_order_acq_rel);
  std::lock_guard<std::mutex> lock(mu_);
  for (int a = 0; a < kNumAlgorithms; ++a) {
    total_runs_[a] += s->runs[a];
    total_ineligible_[a] += s->ineligible[a];
  }
  if (s->observer) {
    try {
      for (const auto& [cell, stats] : s->observer->cells()) {
        totals_[TotalsKey(s->env.size, s->section_index, cell)].Add(*stats);
      }
    } catch (...) {
      // Out of memory: the job goes on without these statistics.
    }
  }
  if (s->prev != nullptr) s->prev->next = s->next;
  if (s->next != nullptr) s->next->prev = s->prev;
  if (live_ == s) live_ = s->next;
}

int Runtime::DeleteAttribute(MPI_Comm, int, void* value, void* extra) {
  CommState* s = static_cast<CommState*>(value);
  static_cast<Runtime*>(extra)->Forget(s);
  if (s->p2p != MPI_COMM_NULL) PMPI_Comm_free(&s->p2p);
  s->native_comms.Free();
  s->nodes.Free();
  delete s;
  return MPI_SUCCESS;
}

void Runtime::NoteDatatype(Collective c, MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL || VerboseLevel() < 1) return;
  const DatatypeClass k = ClassOf(type);
  if (k.layout == LayoutClass::kContiguous) return;
  std::string seen = std::string(InfoOf(c).name) + " " + Describe(k);
  std::lock_guard<std::mutex> lock(mu_);
  datatypes_seen_.insert(std::move(seen));
}

void Runtime::NoteFirstRun(const CommState& s, Collective c, Algorithm a) {
  if (s.env.rank != 0) return;
  LogInfo(2, "%s on a communicator of %d processes runs %s",
          std::string(InfoOf(c).name).c_str(), s.env.size, std::string(InfoOf(a).name).c_str());
}

void Runtime::RecordIneligible(CommState& s, Collective c, Algorithm a, Algorithm ran) {
  const int i = IndexOf(a);
  ++s.ineligible[i];
  if (ran != Algorithm::kDefault) ++s.runs[IndexOf(ran)];
  if (s.env.rank == 0 && VerboseLevel() >= 1 && !noted_ineligible_[i].exchange(true)) {
    const bool world_only =
        IsNative(a) && natives_ != nullptr && natives_->shadows_at_start_only();
    LogInfo(1, "%s cannot run a %s call on %d processes (%s); %s ran instead",
            std::string(InfoOf(a).name).c_str(), std::string(InfoOf(c).name).c_str(),
            s.env.size,
            world_only ? "under MPI_THREAD_MULTIPLE only on MPI_COMM_WORLD, or datatype, "
                         "operation, size"
                       : "datatype, operation, size, node layout or scratch budget",
            ran == Algorithm::kDefault ? "the library's default"
                                       : std::string(InfoOf(ran).name).c_str());
  }
}

uint32_t Runtime::NextThreadGap() {
  tls_rng_ ^= tls_rng_ >> 12;
  tls_rng_ ^= tls_rng_ << 25;
  tls_rng_ ^= tls_rng_ >> 27;
  const uint64_t r = tls_rng_ * 0x2545f4914f6cdd1dULL;
  const uint64_t span = 2 * static_cast<uint64_t>(observe_.mean_gap) - 1;
  return static_cast<uint32_t>(1 + (r >> 11) % span);
}

void Runtime::Snapshot(uint64_t now_ns) {
  snapshot_due_ns_ = now_ns + snapshot_interval_ns_;
  try {
    Totals mine;
    {
      std::lock_guard<std::mutex> lock(mu_);
      mine = totals_;
      for (CommState* s = live_; s != nullptr; s = s->next) {
        if (!s->observer) continue;
        for (const auto& [cell, stats] : s->observer->cells()) {
          mine[TotalsKey(s->env.size, s->section_index, cell)].Add(*stats);
        }
      }
    }
    std::vector<uint64_t> counts(counted::kCells);
    counted::Read(counts.data());
    SnapshotReport(mine, counts.data(), plan_, context_, table_.table(),
                   &snapshot_call_);
  } catch (...) {
  }
}

}  // namespace colltune::shim
