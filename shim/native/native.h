// The MPI library's own algorithms (`native:<name>`), forced call by call.
//
// Promises: what the running library offers is asked of the library itself;
// every verdict (an algorithm offered, a shadow communicator made, forcing
// failed) is the same on every rank; a call of a form the library gets wrong
// (common/quirks.h), or any failure to force, runs the default. How each
// library is forced (Open MPI: shadow communicators made with its control
// set; MPICH: its control written around the call) and why:
// docs/architecture.md, "The library's own algorithms".
#ifndef COLLTUNE_SHIM_NATIVE_NATIVE_H_
#define COLLTUNE_SHIM_NATIVE_NATIVE_H_

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/catalog.h"
#include "shim/mpi/mpi.h"
#include "shim/native/controls.h"

namespace colltune::shim {

enum class NativeControl : uint8_t {
  kNone,     // nothing to force: no native algorithm runs
  kPerComm,  // Open MPI: read when a communicator is created
  kPerCall,  // MPICH: read at every call
};

class NativeComms;

class NativeAlgorithms {
 public:
  // An algorithm the library listed, whether colltune knows its name or not.
  struct Listed {
    Collective collective;
    std::string name;
    int value;
    std::optional<Algorithm> id;  // nullopt: not in colltune's catalogue
    bool settable = true;  // false: the library refuses to set it at run time
  };

  // Asks the running library (after MPI_Init; local, not collective). Never
  // null. `notes` get one line per thing an operator should know: algorithms
  // the library lists that colltune does not know, controls that are off.
  static std::unique_ptr<NativeAlgorithms> Discover(int thread_level,
                                                    std::vector<std::string>* notes);
  // Discover on every process of `comm` (collective), usable on all of them
  // or on none (the thread level may differ by rank).
  static std::unique_ptr<NativeAlgorithms> DiscoverEverywhere(
      int thread_level, MPI_Comm comm, std::vector<std::string>* notes);
  ~NativeAlgorithms();  // closes the controls (MPI_T: frees its handles, then MPI_T)

  NativeControl control() const { return control_; }
  // The library offers `a` and it can be forced here.
  bool Has(Algorithm a) const {
    return control_ != NativeControl::kNone && value_[IndexOf(a)] >= 0;
  }
  const std::vector<Listed>& listed() const { return listed_; }
  // The control value of `a` (-1 if not offered).
  int ValueOf(Algorithm a) const { return value_[IndexOf(a)]; }

  // The forms of a call in which `a` is wrong in this library and version
  // (QuirkForm bits of common/quirks.h; 0 for none): there the default runs.
  uint8_t QuirkForms(Algorithm a) const { return quirk_forms_[IndexOf(a)]; }

  // Whether `a` can run on a communicator of `size` processes whose shadows
  // are `comms` (per-communicator control: there is one for `a` or room for
  // one). Inline, as are the lookups below: a forced call asks on every call.
  inline bool Runnable(Algorithm a, const NativeComms* comms, int size) const;
  // The segment size `a` is forced with (AlgorithmInfo::segment).
  uint32_t SegmentOf(Algorithm a) const { return segment_[IndexOf(a)]; }

  // Shadows may be made only at the start (MPI_THREAD_MULTIPLE on some
  // rank, Open MPI): Runnable is then true only where one was made.
  bool shadows_at_start_only() const { return shadows_at_start_only_; }

  // Runs fn(call, comm) with `a` in force over `comm`'s processes, or with
  // the default if forcing it failed on any rank (*forced says which, the
  // same on every rank); returns fn's MPI error code. Runnable(a, comms)
  // must be true on every rank.
  int Run(Algorithm a, MPI_Comm comm, NativeComms* comms,
          int (*fn)(const void* call, MPI_Comm comm), const void* call,
          bool* forced) const;
  // Where `a` is forced by a shadow communicator already made: that shadow
  // (the caller may run the call on it directly, as Run would), else
  // MPI_COMM_NULL.
  inline MPI_Comm ShadowOf(Algorithm a, const NativeComms* comms) const;
  // The same where nothing about a call needs checking first (`a` has no
  // forced segment size, whose eligibility depends on the call's bytes, and
  // no quirk form): a forced call's whole path once its shadow exists. A
  // shadow exists only where `a` was Runnable on its communicator, whose
  // size never changes.
  __attribute__((always_inline)) MPI_Comm UncheckedShadowOf(Algorithm a,
                                                           const NativeComms* comms) const {
    return Unchecked(a) ? ShadowOf(a, comms) : MPI_COMM_NULL;
  }
  bool Unchecked(Algorithm a) const { return per_call_checks_[IndexOf(a)] == 0; }

 private:
  friend class NativeComms;
  NativeAlgorithms();
  // Sets control `id` to `value`; returns the value it had, or -1.
  int SwapId(int id, int value) const;
  // Sets the control of `c` to `value`; returns the value it had, or -1.
  int Swap(Collective c, int value) const;
  // The same for the segment size of `c`'s forced algorithm (Open MPI).
  int SwapSegment(Collective c, int bytes) const;
  // Offers the segmented variants of `c`'s offered algorithms if the library
  // lets their segment size be set (Open MPI).
  void DiscoverSegments(Collective c);

  NativeControl control_ = NativeControl::kNone;
  bool shadows_at_start_only_ = false;
  std::unique_ptr<Controls> controls_;  // null: nothing can be forced
  std::array<int, kNumAlgorithms> value_;
  std::array<uint8_t, kNumAlgorithms> quirk_forms_{};
  // AlgorithmInfo's only_size and segment, copied here for the hot path.
  std::array<uint8_t, kNumAlgorithms> only_size_{};
  std::array<uint32_t, kNumAlgorithms> segment_{};
  // 1 where segment_ or quirk_forms_ is set: a call must be checked.
  std::array<uint8_t, kNumAlgorithms> per_call_checks_{};
  // Each collective's algorithm control and segment size control (ids of
  // controls_), -1 for none.
  std::array<int, kNumCollectives> control_id_;
  std::array<int, kNumCollectives> segment_id_;
  std::vector<Listed> listed_;
};

// The shadow communicators of one user communicator (Open MPI), each with
// one native algorithm forced for one collective.
class NativeComms {
 public:
  // A job's communicator: enough for a table's few native choices per
  // collective. The benchmark, which measures them all, asks for more.
  static constexpr int kDefaultMaxShadows = 16;

  explicit NativeComms(int max_shadows = kDefaultMaxShadows)
      : max_(max_shadows < kNumNatives ? max_shadows : kNumNatives) {}
  NativeComms(const NativeComms&) = delete;
  NativeComms& operator=(const NativeComms&) = delete;

  // The shadow of `comm` for `a`, created now if there is none (collective
  // over `comm`: every rank calls it in the same call). On failure *out is
  // `comm` itself and later calls stop trying: the default runs.
  int Get(const NativeAlgorithms& natives, Algorithm a, MPI_Comm comm, MPI_Comm* out);
  bool Has(Algorithm a) const { return slot_[IndexOf(a) - kFirst] != 0; }
  // The shadow for `a`, or MPI_COMM_NULL if none was made.
  MPI_Comm Find(Algorithm a) const {
    const int slot = slot_[IndexOf(a) - kFirst];
    return slot != 0 ? shadows_[slot - 1].comm : MPI_COMM_NULL;
  }
  bool Full() const { return count_ >= max_ || failed_; }
  int count() const { return count_; }
  // Frees the shadows (MPI calls: before the user communicator goes).
  void Free();

 private:
  struct Shadow {
    Algorithm algorithm;
    MPI_Comm comm;
  };
  static constexpr int kFirst = IndexOf(Algorithm::kFirstNative);
  std::array<Shadow, kNumNatives> shadows_{};
  // Per native algorithm: 1 + its index in shadows_, 0 for none.
  std::array<uint8_t, kNumNatives> slot_{};
  int max_;
  int count_ = 0;
  bool failed_ = false;
};

bool NativeAlgorithms::Runnable(Algorithm a, const NativeComms* comms, int size) const {
  const int i = IndexOf(a);
  if (control_ == NativeControl::kNone || value_[i] < 0) return false;
  if (only_size_[i] != 0 && only_size_[i] != size) return false;
  if (control_ == NativeControl::kPerCall) return true;
  if (comms == nullptr) return false;
  if (comms->Has(a)) return true;
  return !shadows_at_start_only_ && !comms->Full();
}

MPI_Comm NativeAlgorithms::ShadowOf(Algorithm a, const NativeComms* comms) const {
  return control_ == NativeControl::kPerComm && comms != nullptr ? comms->Find(a)
                                                                 : MPI_COMM_NULL;
}

// Around PMPI_Init/PMPI_Init_thread: Open MPI takes forced algorithms into
// account only if coll_tuned_use_dynamic_rules is on at MPI_Init, and MPI_T
// cannot turn it on later, so the shim sets it in the environment for the
// library's start (unless the user set it, or `enabled` is false: the shim
// is disabled) and
// takes it out again afterwards (child processes must not inherit it). With
// no rules file and nothing forced, Open MPI's dynamic decision falls back to
// its fixed rules: the job's communicators behave as before. No-op for MPICH.
class NativeInitScope {
 public:
  explicit NativeInitScope(bool enabled);
  ~NativeInitScope();
  NativeInitScope(const NativeInitScope&) = delete;
  NativeInitScope& operator=(const NativeInitScope&) = delete;

 private:
  bool set_ = false;
};

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_NATIVE_NATIVE_H_
