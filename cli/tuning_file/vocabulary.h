// What the libraries' tuning files call things: the one place that maps
// colltune's native algorithms (common/catalog.cc) and its message-size key
// to each file's vocabulary, and what the installed library says of itself.
// Facts: docs/library-controls.md (Open MPI 4.1.4, MPICH 4.0.2),
// docs/native-formats.md.
#ifndef COLLTUNE_CLI_TUNING_FILE_VOCABULARY_H_
#define COLLTUNE_CLI_TUNING_FILE_VOCABULARY_H_

#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/catalog.h"

namespace colltune::cli::tuning_file {

// How a library's file measures a call, given colltune's message-size key
// (per-process block for allgather, alltoall, gather, scatter,
// reduce_scatter_block; the whole vector for allreduce, bcast, reduce, scan).
enum class Measure {
  kKey,           // the same bytes
  kKeyTimesSize,  // the key times the communicator size
  kOther,         // not determined by the key: a choice must hold for all sizes
};

struct FileNames {
  Collective collective;
  // Open MPI coll/tuned: the collective's id in the rules file and its
  // coll_tuned_<collective>_algorithm enumeration, in order: a rule's
  // algorithm number is the name's 1-based position ("" : no algorithms).
  int ompi_id;
  std::string_view ompi_algorithms;
  Measure ompi_measure;
  // MPICH: leaves are "algorithm=MPIR_<mpich_coll>_intra_<name>", or
  // "..._allcomm_<name>" for the names in mpich_allcomm (those that serve
  // inter-communicators too); mpich_condition is the selection key that
  // measures the call as mpich_measure says ("" if none does).
  std::string_view mpich_coll;
  std::string_view mpich_allcomm;
  std::string_view mpich_condition;
  Measure mpich_measure;
};

// In Collective order. Open MPI measures gather and scatter by the send
// arguments on every rank, a scan and an exscan by type size x communicator
// size (no count), an allgatherv by the total divided by the communicator
// size (with the send type's size), barrier and alltoallv not at all; its
// reduce_scatter measures colltune's key, the total. MPICH 4.0.2's total_msg_size of gather and scatter counts
// elements, not bytes, and scan has no message-size condition at all.
inline constexpr FileNames kFileNames[] = {
    {Collective::kAllgather, 0, "linear bruck recursive_doubling ring neighbor two_proc",
     Measure::kKeyTimesSize, "Allgather", "nb", "total_msg_size",
     Measure::kKeyTimesSize},
    {Collective::kAllgatherv, 1, "default bruck ring neighbor two_proc", Measure::kOther,
     "Allgatherv", "nb", "total_msg_size", Measure::kKey},
    {Collective::kAllreduce, 2,
     "basic_linear nonoverlapping recursive_doubling ring segmented_ring rabenseifner",
     Measure::kKey, "Allreduce", "nb", "avg_msg_size",
     Measure::kKey},
    {Collective::kAlltoall, 3, "linear pairwise modified_bruck linear_sync two_proc",
     Measure::kKeyTimesSize, "Alltoall", "nb", "avg_msg_size", Measure::kKey},
    {Collective::kAlltoallv, 4, "basic_linear pairwise", Measure::kOther, "Alltoallv", "nb",
     "", Measure::kOther},
    {Collective::kAlltoallw, 5, "", Measure::kOther, "Alltoallw", "nb", "", Measure::kOther},
    {Collective::kBarrier, 6, "linear double_ring recursive_doubling bruck two_proc tree",
     Measure::kOther, "Barrier", "nb", "", Measure::kOther},
    {Collective::kBcast, 7,
     "basic_linear chain pipeline split_binary_tree binary_tree binomial knomial "
     "scatter_allgather scatter_allgather_ring",
     Measure::kKey, "Bcast", "nb", "avg_msg_size", Measure::kKey},
    {Collective::kExscan, 8, "linear recursive_doubling", Measure::kOther, "Exscan", "nb", "",
     Measure::kOther},
    {Collective::kGather, 9, "basic_linear binomial linear_sync", Measure::kKeyTimesSize,
     "Gather", "nb", "", Measure::kOther},
    {Collective::kGatherv, 10, "", Measure::kOther, "Gatherv", "linear nb", "",
     Measure::kOther},
    {Collective::kReduce, 11,
     "linear chain pipeline binary binomial in-order_binary rabenseifner", Measure::kKey,
     "Reduce", "nb", "avg_msg_size", Measure::kKey},
    {Collective::kReduceScatter, 12, "non-overlapping recursive_halving ring butterfly",
     Measure::kKey, "Reduce_scatter", "nb", "total_msg_size", Measure::kKey},
    {Collective::kReduceScatterBlock, 13,
     "basic_linear recursive_doubling recursive_halving butterfly",
     Measure::kKeyTimesSize, "Reduce_scatter_block", "nb", "total_msg_size",
     Measure::kKeyTimesSize},
    {Collective::kScan, 14, "linear recursive_doubling", Measure::kOther, "Scan",
     "nb", "", Measure::kOther},
    {Collective::kScatter, 15, "basic_linear binomial linear_nb", Measure::kKeyTimesSize,
     "Scatter", "nb", "", Measure::kOther},
    {Collective::kScatterv, 16, "", Measure::kOther, "Scatterv", "linear nb", "",
     Measure::kOther},
};
static_assert(std::size(kFileNames) == kNumCollectives);

// MPICH 4.0.2's restrictions on its algorithms (src/mpi/coll/coll_algorithms.txt).
// Its algorithm variables check them and fall back to the automatic choice;
// a selection file runs a leaf unchecked (bcast smp on a communicator without
// a node hierarchy fails an assertion), so each leaf is guarded by the
// conditions that express them. Scan has no commutativity condition in
// 4.0.2; MPICH's own tree runs scan smp on any operation too.
struct MpichRestriction {
  Collective collective;
  std::string_view name;
  std::string_view restrictions;
};
inline constexpr MpichRestriction kMpichRestrictions[] = {
    {Collective::kAllgather, "recursive_doubling", "power-of-two"},
    {Collective::kAllgatherv, "recursive_doubling", "power-of-two"},
    {Collective::kAllreduce, "smp", "commutative parent-comm"},
    {Collective::kAllreduce, "reduce_scatter_allgather", "size-ge-pof2 builtin-op"},
    {Collective::kAlltoall, "brucks", "noinplace"},
    {Collective::kAlltoall, "pairwise", "noinplace"},
    {Collective::kAlltoall, "pairwise_sendrecv_replace", "inplace"},
    {Collective::kAlltoall, "scattered", "noinplace"},
    {Collective::kAlltoallv, "pairwise_sendrecv_replace", "inplace"},
    {Collective::kAlltoallv, "scattered", "noinplace"},
    {Collective::kAlltoallw, "pairwise_sendrecv_replace", "inplace"},
    {Collective::kAlltoallw, "scattered", "noinplace"},
    {Collective::kBarrier, "smp", "parent-comm"},
    {Collective::kBcast, "smp", "parent-comm"},
    {Collective::kReduce, "smp", "commutative parent-comm"},
    {Collective::kReduce, "reduce_scatter_gather", "size-ge-pof2 builtin-op"},
    {Collective::kReduceScatter, "noncommutative", "power-of-two block-regular"},
    {Collective::kReduceScatter, "pairwise", "commutative"},
    {Collective::kReduceScatter, "recursive_halving", "commutative"},
    {Collective::kReduceScatterBlock, "noncommutative", "power-of-two"},
    {Collective::kReduceScatterBlock, "pairwise", "commutative"},
    {Collective::kReduceScatterBlock, "recursive_halving", "commutative"},
    {Collective::kScan, "smp", "node-consecutive"},
};

// Open MPI's rule fields after the algorithm: fan-in/out and segment size
// (coll/tuned's defaults for a forced algorithm but for the catalogue's
// segmented variants), so a rule runs what the shim's forcing runs.
std::string OmpiFanoutSegsize(std::optional<Algorithm> a);

// The space-separated words of `list`.
std::vector<std::string_view> Words(std::string_view list);
// Whether `word` is one of `list`'s, and its 1-based position.
bool HasWord(std::string_view list, std::string_view word, int* position = nullptr);
// Open MPI's algorithm number of native algorithm `a`, 0 if it has none.
int OmpiNumber(Collective c, Algorithm a);
// MPICH's leaf name of native algorithm `a` ("MPIR_Bcast_intra_binomial").
std::string MpichLeaf(Collective c, Algorithm a);

// What the MPI library installed here says of itself: its version and, for
// Open MPI, the values of every coll_tuned_<collective>_algorithm
// enumeration (ompi_info), which a rules file's algorithm numbers are.
struct InstalledLibrary {
  std::string version;  // "" if it could not be asked
  bool listed = false;  // Open MPI: the enumerations were read
  std::map<std::pair<int, std::string>, int> values;  // (collective, name) -> value
};

// Asks the installed library (ompi_info, mpichversion).
InstalledLibrary AskOpenMpi();
InstalledLibrary AskMpich();

// Where colltune's numbering of Open MPI's algorithms (kFileNames, made for
// 4.1.4) differs from the installed library's, one line each; empty if it
// agrees for every collective.
std::vector<std::string> NumberingMismatches(const InstalledLibrary& lib);

}  // namespace colltune::cli::tuning_file

#endif  // COLLTUNE_CLI_TUNING_FILE_VOCABULARY_H_
