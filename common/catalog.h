// The catalogue of collectives and algorithms: the names of the public
// contract, shared by the shim, the daemon, the benchmark and the CLI.
//
// A name that is not here is not an algorithm: the daemon rejects it, the
// table parser rejects it, COLLTUNE_FORCE reports it and ignores it. Adding an
// algorithm means adding it here and giving the shim an implementation
// (shim/coll/<collective>/).
//
// This header is plain C++17 with no dependencies: it is compiled into the
// shim, which lives inside other people's jobs.
#ifndef COLLTUNE_COMMON_CATALOG_H_
#define COLLTUNE_COMMON_CATALOG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace colltune {

// Every collective the shim intercepts, in the contract's (alphabetical) order.
enum class Collective : uint8_t {
  kAllgather,
  kAllgatherv,
  kAllreduce,
  kAlltoall,
  kAlltoallv,
  kAlltoallw,
  kBarrier,
  kBcast,
  kExscan,
  kGather,
  kGatherv,
  kReduce,
  kReduceScatter,
  kReduceScatterBlock,
  kScan,
  kScatter,
  kScatterv,
};
inline constexpr int kNumCollectives = 17;

// What a collective's decisions are keyed on besides the communicator size
// (the contract's rule 3: only values every rank computes identically).
enum class SizeKey : uint8_t {
  // The message size of the call, in bytes (count x MPI_Type_size).
  kBytes,
  // The total of all ranks' blocks in bytes, which every rank can add up
  // from the counts array it holds (Allgatherv, Reduce_scatter).
  kTotalBytes,
  // None: no size all ranks know without communicating (Gatherv and
  // Scatterv, whose counts only the root holds; Alltoallv and Alltoallw,
  // where each rank holds its own row) or no data at all (Barrier). The key
  // is 0 and a decision covers every call on the communicator.
  kNone,
};

// Algorithm 0 is the MPI library's own implementation, valid for every
// collective; every other algorithm belongs to exactly one collective.
//
// Two kinds follow it: mock-ups (common/mockups.def lists them: compositions
// of other collectives in shim/coll/) and the libraries' own algorithms
// (`native:<the library's name>`, ids kFirstNative.. in catalog.cc's table,
// run by forcing the library's choice, shim/native/). Ids are internal to a
// process: everything that crosses a process boundary uses the names.
enum class Algorithm : uint8_t {
  kDefault = 0,
// One enumerator per row of common/mockups.def, in its order.
#define COLLTUNE_MOCKUP(id, collective, name, guideline, what) k##id,
#include "common/mockups.def"
#undef COLLTUNE_MOCKUP
  kFirstNative,  // the first of kNumNatives native algorithms
};
inline constexpr int kNumNatives = 140;
inline constexpr int kNumAlgorithms = static_cast<int>(Algorithm::kFirstNative) + kNumNatives;

// The MPI libraries whose own algorithms colltune can force, as a bit mask.
enum NativeLibrary : uint8_t {
  kOpenMpi = 1,  // coll/tuned's coll_tuned_<collective>_algorithm
  kMpich = 2,    // MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM (MPICH and derivatives)
};
// Prefix of every native algorithm's name.
inline constexpr std::string_view kNativePrefix = "native:";
// Between a native algorithm's name and its forced segment size.
inline constexpr std::string_view kSegmentInfix = "_seg";

struct CollectiveInfo {
  Collective id;
  std::string_view name;      // contract name, e.g. "reduce_scatter_block"
  std::string_view mpi_name;  // e.g. "MPI_Reduce_scatter_block"
  // Irregular collectives (blocks of different sizes per rank): campaigns
  // measure them at block-size distributions (common/problems.h), and a
  // decision must hold over the distributions measured.
  bool irregular;
  SizeKey key;
};

struct AlgorithmInfo {
  Algorithm id;
  Collective collective;  // meaningless for kDefault
  std::string_view name;
  std::string_view guideline;  // "GL5" for seed 004's guidelines, else ""
  std::string_view summary;    // what the algorithm does, one line
  // Native algorithms: the libraries known to have one of this name for this
  // collective (NativeLibrary bits; the running library has the last word,
  // shim/native/); 0 for mock-ups and default.
  uint8_t libraries = 0;
  // The only communicator size it runs on (Open MPI's two_proc algorithms
  // fail elsewhere instead of falling back), 0 for any.
  uint8_t only_size = 0;
  // Native algorithms: the segment size in bytes it is forced with (Open
  // MPI's coll_tuned_<collective>_algorithm_segmentsize), named
  // `native:<name>_seg<k>k`; 0: the library's own segmentation.
  uint32_t segment = 0;
  // A library's choice made when the job starts, for every call (Open MPI's
  // coll/han: `native:han`): campaigns measure it in a launch of its own and
  // the profile shows it, but no table can choose it per call.
  bool at_launch = false;

  bool native() const { return libraries != 0; }
  // The library's own name of a native algorithm ("ring", also for
  // "native:ring_seg16k"), else `name`.
  std::string_view library_name() const {
    if (!native()) return name;
    const std::string_view rest = name.substr(kNativePrefix.size());
    return segment == 0 ? rest : rest.substr(0, rest.rfind(kSegmentInfix));
  }
};

constexpr int IndexOf(Collective c) { return static_cast<int>(c); }
constexpr int IndexOf(Algorithm a) { return static_cast<int>(a); }

// In the enum's order. In the header so that InfoOf(Collective) is a
// constant where the collective is: the shim's hot path reads its key.
inline constexpr CollectiveInfo kCollectiveInfos[kNumCollectives] = {
    {Collective::kAllgather, "allgather", "MPI_Allgather", false, SizeKey::kBytes},
    {Collective::kAllgatherv, "allgatherv", "MPI_Allgatherv", true, SizeKey::kTotalBytes},
    {Collective::kAllreduce, "allreduce", "MPI_Allreduce", false, SizeKey::kBytes},
    {Collective::kAlltoall, "alltoall", "MPI_Alltoall", false, SizeKey::kBytes},
    {Collective::kAlltoallv, "alltoallv", "MPI_Alltoallv", true, SizeKey::kNone},
    {Collective::kAlltoallw, "alltoallw", "MPI_Alltoallw", true, SizeKey::kNone},
    {Collective::kBarrier, "barrier", "MPI_Barrier", false, SizeKey::kNone},
    {Collective::kBcast, "bcast", "MPI_Bcast", false, SizeKey::kBytes},
    {Collective::kExscan, "exscan", "MPI_Exscan", false, SizeKey::kBytes},
    {Collective::kGather, "gather", "MPI_Gather", false, SizeKey::kBytes},
    {Collective::kGatherv, "gatherv", "MPI_Gatherv", true, SizeKey::kNone},
    {Collective::kReduce, "reduce", "MPI_Reduce", false, SizeKey::kBytes},
    {Collective::kReduceScatter, "reduce_scatter", "MPI_Reduce_scatter", true,
     SizeKey::kTotalBytes},
    {Collective::kReduceScatterBlock, "reduce_scatter_block",
     "MPI_Reduce_scatter_block", false, SizeKey::kBytes},
    {Collective::kScan, "scan", "MPI_Scan", false, SizeKey::kBytes},
    {Collective::kScatter, "scatter", "MPI_Scatter", false, SizeKey::kBytes},
    {Collective::kScatterv, "scatterv", "MPI_Scatterv", true, SizeKey::kNone},
};

constexpr const CollectiveInfo& InfoOf(Collective c) { return kCollectiveInfos[IndexOf(c)]; }
const AlgorithmInfo& InfoOf(Algorithm a);

std::optional<Collective> ParseCollective(std::string_view name);
// The algorithm of collective `c` (or default) named `name`. Native names
// repeat across collectives ("native:ring"), so a name alone does not say
// which algorithm it is.
std::optional<Algorithm> ParseAlgorithm(std::string_view name, Collective c);
// Whether `name` is an algorithm of any collective (for error messages).
bool IsAlgorithmName(std::string_view name);

// True if `a` computes `c`: default does for every collective.
bool Implements(Algorithm a, Collective c);

inline bool IsNative(Algorithm a) { return a >= Algorithm::kFirstNative; }
// Only a whole job can run it (AlgorithmInfo::at_launch).
bool AtLaunchOnly(Algorithm a);

// The hierarchical mock-ups (mockups.def's section of that name: the
// collective within nodes and among them, shim/coll/node_layout.h). In a job
// on one node, or with one process per node, each is a flat mock-up of the
// same collective plus communicators to build.
bool IsHierarchical(Algorithm a);

// <collective>_as_packed, seed 003's packed form of `c`, if it has one.
std::optional<Algorithm> PackedFormOf(Collective c);

// Seed 003's repairs for data described by derived datatypes (guidelines
// "DGL<n>": <collective>_as_packed, <collective>_as_normalized): with
// default, what a rule for a datatype layout may name (common/table.h), and
// what campaigns time at the datatype grid's points, and there only.
bool IsDatatypeForm(Algorithm a);
// A datatype form that only redescribes the data (DGL1: one contiguous type;
// DGL4: the normal form) and then runs the library's own collective: no
// copy, no scratch, no other calls. The engine holds it to the library's own
// algorithms' margin (daemon/engine.h); packed forms copy, and are mock-ups.
bool RedescribesOnly(Algorithm a);
// The datatype forms of `c`, "bcast_as_packed or bcast_as_normalized" (for
// messages); empty if it has none.
std::string DatatypeFormNames(Collective c);
// Whether `c` has a datatype form (campaigns time it on seed 003's grid).
bool HasDatatypeForms(Collective c);

// The native algorithm of collective `c` the library calls `library_name`
// ("recursive_doubling"), if colltune knows one: the one with the library's
// own segmentation.
std::optional<Algorithm> FindNative(Collective c, std::string_view library_name);

// The library family of a LibraryId name ("Open MPI" -> kOpenMpi, "MPICH" ->
// kMpich), 0 for others.
uint8_t NativeLibraryOf(std::string_view library);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_CATALOG_H_
