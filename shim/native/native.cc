#include "shim/native/native.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "common/library_id.h"
#include "common/quirks.h"

namespace colltune::shim {
namespace {

// Whether the library lets the control be set at run time (writing back the
// value it holds changes nothing).
bool Settable(const Controls& controls, int id) {
  int current = 0;
  return controls.Read(id, &current) && controls.Write(id, current);
}

#if !defined(OPEN_MPI)
std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// MPICH lists its algorithms in the variable's description, one per line,
// "name<spaces>- what it does"; MPI_T hands the text over with the line
// breaks removed, so each name is glued to the end of the previous line.
// Returns the names in value order ("auto" first), or nullopt unless every
// entry is "auto" or one of `known` ending where a word ends (an unknown
// algorithm, or a misread position, would make every later value wrong, and
// MPICH aborts on a value it does not list).
std::optional<std::vector<std::string>> ParseMpichList(
    const std::string& text, const std::vector<std::string_view>& known,
    std::string* unknown) {
  std::vector<std::string> names;
  size_t pos = 0;
  while (true) {
    const size_t dash = text.find("- ", pos);
    if (dash == std::string::npos) break;
    pos = dash + 2;
    size_t end = dash;
    if (end == 0 || text[end - 1] != ' ') continue;  // "Recursive-Doubling"
    while (end > 0 && text[end - 1] == ' ') --end;
    size_t begin = end;
    while (begin > 0 && IsNameChar(text[begin - 1])) --begin;
    const std::string_view run(text.data() + begin, end - begin);
    std::string_view best;
    auto consider = [&](std::string_view name) {
      if (run.size() < name.size() || run.substr(run.size() - name.size()) != name) return;
      if (run.size() > name.size() && run[run.size() - name.size() - 1] == '_') return;
      if (name.size() > best.size()) best = name;
    };
    consider("auto");
    for (std::string_view k : known) consider(k);
    if (best.empty()) {
      *unknown = std::string(run.substr(run.size() > 32 ? run.size() - 32 : 0));
      return std::nullopt;
    }
    names.emplace_back(best);
  }
  if (names.empty() || names[0] != "auto") return std::nullopt;
  return names;
}
#endif

// The library this shim is built for, as the catalogue's NativeLibrary bit.
#if defined(OPEN_MPI)
constexpr uint8_t kLibrary = kOpenMpi;
#else
constexpr uint8_t kLibrary = kMpich;
#endif

}  // namespace

NativeAlgorithms::NativeAlgorithms() {
  value_.fill(-1);
  control_id_.fill(-1);
  segment_id_.fill(-1);
  for (int a = 0; a < kNumAlgorithms; ++a) {
    only_size_[a] = InfoOf(static_cast<Algorithm>(a)).only_size;
    segment_[a] = InfoOf(static_cast<Algorithm>(a)).segment;
    per_call_checks_[a] = segment_[a] != 0 ? 1 : 0;
  }
}

NativeAlgorithms::~NativeAlgorithms() = default;

std::unique_ptr<NativeAlgorithms> NativeAlgorithms::Discover(
    int thread_level, std::vector<std::string>* notes) {
  std::unique_ptr<NativeAlgorithms> n(new NativeAlgorithms);
  n->controls_ = Controls::Open(thread_level, notes);
  if (!n->controls_) return n;
  Controls& controls = *n->controls_;
#if defined(OPEN_MPI)
  const NativeControl control = NativeControl::kPerComm;
  // Forced algorithms count only with dynamic rules on at MPI_Init, and a
  // rules file would override them (so what ran would not be what we chose).
  if (controls.ReadBool("coll_tuned_use_dynamic_rules") == false) {
    notes->push_back(
        "native algorithms: Open MPI's coll_tuned_use_dynamic_rules is off "
        "(set by the user?); none can be forced");
    return n;
  }
  if (auto file = controls.ReadString("coll_tuned_dynamic_rules_filename");
      file && !file->empty()) {
    notes->push_back("native algorithms: Open MPI reads the rules file " + *file +
                     ", which overrides forced algorithms; none is forced");
    return n;
  }
#else
  const NativeControl control = NativeControl::kPerCall;
  // A forced algorithm whose restrictions a call does not meet runs MPICH's
  // automatic choice only when the fallback is "silent" (2, the default);
  // "error" would fail the call, "print" would write to the job's output.
  if (auto fallback = controls.Find("MPIR_CVAR_COLLECTIVE_FALLBACK")) {
    int value = -1;
    if (fallback->is_int()) controls.Read(fallback->id, &value);
    if (value != 2) {
      notes->push_back(
          "native algorithms: MPIR_CVAR_COLLECTIVE_FALLBACK is not 'silent'; none "
          "is forced");
      return n;
    }
  }
#endif
  if (thread_level == MPI_THREAD_MULTIPLE) {
#if defined(OPEN_MPI)
    n->shadows_at_start_only_ = true;
    notes->push_back(
        "native algorithms under MPI_THREAD_MULTIPLE: on MPI_COMM_WORLD only, "
        "its shadows made inside MPI_Init (a control set later could reach a "
        "communicator another thread creates)");
#else
    notes->push_back(
        "native algorithms: not under MPI_THREAD_MULTIPLE (MPICH reads its "
        "control at every call, from one variable for the whole process: "
        "another thread's collective would run the forced algorithm on some "
        "ranks only)");
    return n;
#endif
  }
  bool any = false;
  for (int ci = 0; ci < kNumCollectives; ++ci) {
    const Collective c = static_cast<Collective>(ci);
    const std::string cname(InfoOf(c).name);
#if defined(OPEN_MPI)
    auto cvar = controls.Find("coll_tuned_" + cname + "_algorithm");
    if (!cvar || !cvar->is_int() || cvar->items.empty()) continue;
    std::vector<std::pair<std::string, int>> offered;
    for (const auto& [name, value] : cvar->items) {
      if (value != 0) offered.emplace_back(name, value);  // 0, "ignore": the library decides
    }
#else
    auto cvar = controls.Find("MPIR_CVAR_" + Upper(cname) + "_INTRA_ALGORITHM");
    if (!cvar || !cvar->is_int()) continue;
    std::vector<std::string_view> known;
    for (int a = IndexOf(Algorithm::kFirstNative); a < kNumAlgorithms; ++a) {
      const AlgorithmInfo& info = InfoOf(static_cast<Algorithm>(a));
      if (info.collective == c && info.segment == 0) known.push_back(info.library_name());
    }
    std::string unknown;
    auto names = ParseMpichList(cvar->description, known, &unknown);
    if (!names) {
      notes->push_back("native algorithms: MPICH lists " + cname +
                       " algorithms colltune cannot read with certainty (near '" +
                       unknown + "'); none of them runs");
      continue;
    }
    std::vector<std::pair<std::string, int>> offered;
    for (size_t i = 1; i < names->size(); ++i) {
      offered.emplace_back((*names)[i], static_cast<int>(i));
    }
#endif
    // A control the library will not let us set (Open MPI 4.1.4's
    // coll_tuned_allgatherv_algorithm refuses every write) cannot force
    // anything: its algorithms are listed, never run.
    if (!Settable(controls, cvar->id)) {
      notes->push_back("native algorithms: the library does not let its " + cname +
                       " algorithm be set at run time; none of them runs");
      for (const auto& [name, value] : offered) {
        n->listed_.push_back({c, name, value, FindNative(c, name), false});
      }
      continue;
    }
    n->control_id_[ci] = cvar->id;
    for (const auto& [name, value] : offered) {
      const std::optional<Algorithm> id = FindNative(c, name);
      n->listed_.push_back({c, name, value, id, true});
      if (!id) {
        notes->push_back("native algorithms: the library's " + cname + " algorithm '" +
                         name + "' is not in colltune's catalogue; not tuned");
        continue;
      }
      n->value_[IndexOf(*id)] = value;
      any = true;
    }
#if defined(OPEN_MPI)
    n->DiscoverSegments(c);
#endif
  }
  if (any) n->control_ = control;
  // Defects of this library's version, by form (common/quirks.h).
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int length = 0;
  if (PMPI_Get_library_version(version, &length) == MPI_SUCCESS) {
    const std::string number = ParseLibraryVersion(std::string(version, length)).version;
    for (int a = IndexOf(Algorithm::kFirstNative); a < kNumAlgorithms; ++a) {
      n->quirk_forms_[a] = QuirkFormsOf(static_cast<Algorithm>(a), kLibrary, number);
    }
  } else {
    // Unknown version: every row holds.
    for (int a = IndexOf(Algorithm::kFirstNative); a < kNumAlgorithms; ++a) {
      n->quirk_forms_[a] = QuirkFormsOf(static_cast<Algorithm>(a), kLibrary, "");
    }
  }
  for (int a = IndexOf(Algorithm::kFirstNative); a < kNumAlgorithms; ++a) {
    if (n->quirk_forms_[a] != 0) n->per_call_checks_[a] = 1;
  }
  return n;
}

void NativeAlgorithms::DiscoverSegments(Collective c) {
  // The catalogue's variants of `c`, each with the value of its algorithm.
  std::vector<std::pair<int, int>> variants;  // (algorithm index, value)
  for (int a = IndexOf(Algorithm::kFirstNative); a < kNumAlgorithms; ++a) {
    const AlgorithmInfo& info = InfoOf(static_cast<Algorithm>(a));
    if (info.collective != c || info.segment == 0 || !(info.libraries & kLibrary)) continue;
    const std::optional<Algorithm> base = FindNative(c, info.library_name());
    if (base && value_[IndexOf(*base)] >= 0) variants.emplace_back(a, value_[IndexOf(*base)]);
  }
  if (variants.empty()) return;
  auto cvar = controls_->Find("coll_tuned_" + std::string(InfoOf(c).name) +
                              "_algorithm_segmentsize");
  if (!cvar || !cvar->is_int() || !Settable(*controls_, cvar->id)) return;
  segment_id_[IndexOf(c)] = cvar->id;
  for (const auto& [a, value] : variants) value_[a] = value;
}

std::unique_ptr<NativeAlgorithms> NativeAlgorithms::DiscoverEverywhere(
    int thread_level, MPI_Comm comm, std::vector<std::string>* notes) {
  std::unique_ptr<NativeAlgorithms> n = Discover(thread_level, notes);
  // Every rank tries each write it will make (the algorithm's value, and a
  // variant's segment size) and restores it. An algorithm is offered only
  // where every rank could write it, and natives run only where every rank
  // can run them: a library that refuses a write on some processes never
  // splits a call between two algorithms (index 0 carries "usable").
  std::array<int, kNumAlgorithms> here{}, everywhere{};
  static_assert(IndexOf(Algorithm::kFirstNative) > 1, "slots 0 and 1 carry flags");
  here[0] = n->control_ != NativeControl::kNone ? 1 : 0;
  // Slot 1: no thread can race a shadow's making here; if any rank's can,
  // every rank makes shadows only at the start.
  here[1] = n->shadows_at_start_only_ ? 0 : 1;
  for (int a = IndexOf(Algorithm::kFirstNative); here[0] && a < kNumAlgorithms; ++a) {
    if (n->value_[a] < 0) continue;
    const Collective c = InfoOf(static_cast<Algorithm>(a)).collective;
    const int old = n->Swap(c, n->value_[a]);
    bool ok = old >= 0 && n->Swap(c, old) >= 0;
    const int segment = static_cast<int>(InfoOf(static_cast<Algorithm>(a)).segment);
    if (ok && segment != 0) {
      const int old_segment = n->SwapSegment(c, segment);
      ok = old_segment >= 0 && n->SwapSegment(c, old_segment) >= 0;
    }
    here[a] = ok ? 1 : 0;
  }
  if (PMPI_Allreduce(here.data(), everywhere.data(), kNumAlgorithms, MPI_INT, MPI_MIN,
                     comm) != MPI_SUCCESS) {
    everywhere.fill(0);
  }
  if (!everywhere[0]) n->control_ = NativeControl::kNone;
  n->shadows_at_start_only_ = everywhere[1] == 0;
  for (int a = IndexOf(Algorithm::kFirstNative); a < kNumAlgorithms; ++a) {
    if (n->value_[a] < 0 || everywhere[a]) continue;
    n->value_[a] = -1;
    if (everywhere[0]) {
      const AlgorithmInfo& info = InfoOf(static_cast<Algorithm>(a));
      notes->push_back("native algorithms: " + std::string(InfoOf(info.collective).name) +
                       " " + std::string(info.name) +
                       " cannot be set on every process; it does not run");
    }
  }
  return n;
}

int NativeAlgorithms::SwapId(int id, int value) const {
  int old = -1;
  if (id < 0 || !controls_->Read(id, &old) || !controls_->Write(id, value)) return -1;
  return old;
}

int NativeAlgorithms::Swap(Collective c, int value) const {
  return SwapId(control_id_[IndexOf(c)], value);
}

int NativeAlgorithms::SwapSegment(Collective c, int bytes) const {
  return SwapId(segment_id_[IndexOf(c)], bytes);
}

int NativeAlgorithms::Run(Algorithm a, MPI_Comm comm, NativeComms* comms,
                          int (*fn)(const void*, MPI_Comm), const void* call,
                          bool* forced) const {
  *forced = false;
  if (control_ == NativeControl::kPerCall) {
    const Collective c = InfoOf(a).collective;
    // Every rank wrote this value at MPI_Init (DiscoverEverywhere): a write
    // that then succeeded on every rank does so again.
    const int old = Swap(c, value_[IndexOf(a)]);
    if (old < 0) return fn(call, comm);  // not set: the library chooses
    *forced = true;
    const int rc = fn(call, comm);
    // Only the write back: what the variable holds now is ours.
    controls_->Write(control_id_[IndexOf(c)], old);
    return rc;
  }
  MPI_Comm shadow = comm;
  if (comms != nullptr) comms->Get(*this, a, comm, &shadow);
  if (shadow == comm) return fn(call, comm);
  *forced = true;
  const int rc = fn(call, shadow);
  // The shadow returns errors; the user's communicator's handler judges them.
  if (rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(comm, rc);
  return rc;
}

int NativeComms::Get(const NativeAlgorithms& natives, Algorithm a, MPI_Comm comm,
                     MPI_Comm* out) {
  *out = comm;
  if (const MPI_Comm shadow = Find(a); shadow != MPI_COMM_NULL) {
    *out = shadow;
    return MPI_SUCCESS;
  }
  if (Full()) return MPI_ERR_OTHER;
  const Collective c = InfoOf(a).collective;
  const int segment = static_cast<int>(InfoOf(a).segment);
  const int old = natives.Swap(c, natives.value_[IndexOf(a)]);
  const int old_segment = segment != 0 ? natives.SwapSegment(c, segment) : 0;
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Comm shadow = MPI_COMM_NULL;
  int rc = PMPI_Comm_group(comm, &group);
  // Collective even if the write failed on this rank: every rank must create.
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_create(comm, group, &shadow);
  if (group != MPI_GROUP_NULL) PMPI_Group_free(&group);
  if (old >= 0) natives.Swap(c, old);
  if (segment != 0 && old_segment >= 0) natives.SwapSegment(c, old_segment);
  // A shadow without the algorithm forced would run the default while we
  // report the native one, and a rank without a shadow runs the default on
  // the user's communicator: every rank must agree (one reduction, once per
  // communicator and algorithm). If any failed, every rank gives up on this
  // communicator's shadows.
  int ok = rc == MPI_SUCCESS && shadow != MPI_COMM_NULL && old >= 0 && old_segment >= 0;
  int all_ok = 0;
  if (PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) all_ok = 0;
  if (!all_ok) {
    if (shadow != MPI_COMM_NULL) PMPI_Comm_free(&shadow);
    failed_ = true;
    return rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
  }
  PMPI_Comm_set_errhandler(shadow, MPI_ERRORS_RETURN);
  shadows_[count_++] = {a, shadow};
  slot_[IndexOf(a) - kFirst] = static_cast<uint8_t>(count_);
  *out = shadow;
  return MPI_SUCCESS;
}

namespace {
constexpr char kDynamicRules[] = "OMPI_MCA_coll_tuned_use_dynamic_rules";
}  // namespace

NativeInitScope::NativeInitScope(bool enabled) {
#if defined(OPEN_MPI)
  if (!enabled || getenv(kDynamicRules) != nullptr) return;
  set_ = setenv(kDynamicRules, "1", 0) == 0;
#endif
}

NativeInitScope::~NativeInitScope() {
  if (set_) unsetenv(kDynamicRules);
}

void NativeComms::Free() {
  for (int i = 0; i < count_; ++i) PMPI_Comm_free(&shadows_[i].comm);
  count_ = 0;
  slot_.fill(0);
}

}  // namespace colltune::shim
