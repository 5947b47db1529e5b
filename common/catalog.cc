#include "common/catalog.h"

#include <string>

namespace colltune {
namespace {

constexpr AlgorithmInfo Native(int i, Collective c, std::string_view name,
                               uint8_t libraries, uint32_t segment = 0) {
  return {static_cast<Algorithm>(static_cast<int>(Algorithm::kFirstNative) + i),
          c,
          name,
          "",
          segment == 0 ? "the library's own algorithm of this name, forced"
                       : "the library's own algorithm, forced with this segment size",
          libraries,
          static_cast<uint8_t>(name == "native:two_proc" ? 2 : 0),
          segment};
}

constexpr AlgorithmInfo AtLaunch(int i, Collective c, std::string_view name,
                                 uint8_t libraries) {
  AlgorithmInfo info = Native(i, c, name, libraries);
  info.summary = "the library's own component, enabled for the whole job at launch";
  info.at_launch = true;
  return info;
}

// Open MPI runs a forced algorithm unsegmented unless its segment size is
// forced too; its own fixed rules segment exactly where unsegmented trees
// lose (their root is the bottleneck). So the algorithms that segment are
// also candidates at two segment sizes, each eligible only for messages of
// at least two segments.
constexpr uint32_t kSegSmall = 16 * 1024;
constexpr uint32_t kSegLarge = 128 * 1024;

constexpr AlgorithmInfo kAlgorithms[kNumAlgorithms] = {
    {Algorithm::kDefault, Collective::kAllgather, "default", "",
     "the MPI library's own implementation"},
#define COLLTUNE_MOCKUP(id, collective, name, guideline, what) \
  {Algorithm::k##id, Collective::k##collective, name, guideline, what},
#include "common/mockups.def"
#undef COLLTUNE_MOCKUP
    // The libraries' own algorithms, under the names the libraries give them
    // (Open MPI's coll_tuned enumerations and MPICH's algorithm CVARs, as
    // docs/library-controls.md lists them), grouped by collective. Which ones
    // a running library offers, and how to force each, is asked of the
    // library at run time (shim/native/); a name it offers that is missing
    // here is reported, not run.
    Native(0, Collective::kAllgather, "native:bruck", kOpenMpi),
    Native(1, Collective::kAllgather, "native:brucks", kMpich),
    Native(2, Collective::kAllgather, "native:linear", kOpenMpi),
    Native(3, Collective::kAllgather, "native:nb", kMpich),
    Native(4, Collective::kAllgather, "native:neighbor", kOpenMpi),
    Native(5, Collective::kAllgather, "native:recursive_doubling", kOpenMpi | kMpich),
    Native(6, Collective::kAllgather, "native:ring", kOpenMpi | kMpich),
    Native(7, Collective::kAllgather, "native:two_proc", kOpenMpi),
    Native(8, Collective::kAllgatherv, "native:bruck", kOpenMpi),
    Native(9, Collective::kAllgatherv, "native:brucks", kMpich),
    Native(10, Collective::kAllgatherv, "native:default", kOpenMpi),
    Native(11, Collective::kAllgatherv, "native:nb", kMpich),
    Native(12, Collective::kAllgatherv, "native:neighbor", kOpenMpi),
    Native(13, Collective::kAllgatherv, "native:recursive_doubling", kMpich),
    Native(14, Collective::kAllgatherv, "native:ring", kOpenMpi | kMpich),
    Native(15, Collective::kAllgatherv, "native:two_proc", kOpenMpi),
    Native(16, Collective::kAllreduce, "native:basic_linear", kOpenMpi),
    Native(17, Collective::kAllreduce, "native:nb", kMpich),
    Native(18, Collective::kAllreduce, "native:nonoverlapping", kOpenMpi),
    Native(19, Collective::kAllreduce, "native:rabenseifner", kOpenMpi),
    Native(20, Collective::kAllreduce, "native:recursive_doubling", kOpenMpi | kMpich),
    Native(21, Collective::kAllreduce, "native:reduce_scatter_allgather", kMpich),
    Native(22, Collective::kAllreduce, "native:ring", kOpenMpi),
    Native(23, Collective::kAllreduce, "native:segmented_ring", kOpenMpi),
    Native(24, Collective::kAllreduce, "native:smp", kMpich),
    Native(25, Collective::kAlltoall, "native:brucks", kMpich),
    Native(26, Collective::kAlltoall, "native:linear", kOpenMpi),
    Native(27, Collective::kAlltoall, "native:linear_sync", kOpenMpi),
    Native(28, Collective::kAlltoall, "native:modified_bruck", kOpenMpi),
    Native(29, Collective::kAlltoall, "native:nb", kMpich),
    Native(30, Collective::kAlltoall, "native:pairwise", kOpenMpi | kMpich),
    Native(31, Collective::kAlltoall, "native:pairwise_sendrecv_replace", kMpich),
    Native(32, Collective::kAlltoall, "native:scattered", kMpich),
    Native(33, Collective::kAlltoall, "native:two_proc", kOpenMpi),
    Native(34, Collective::kAlltoallv, "native:basic_linear", kOpenMpi),
    Native(35, Collective::kAlltoallv, "native:nb", kMpich),
    Native(36, Collective::kAlltoallv, "native:pairwise", kOpenMpi),
    Native(37, Collective::kAlltoallv, "native:pairwise_sendrecv_replace", kMpich),
    Native(38, Collective::kAlltoallv, "native:scattered", kMpich),
    Native(39, Collective::kAlltoallw, "native:nb", kMpich),
    Native(40, Collective::kAlltoallw, "native:pairwise_sendrecv_replace", kMpich),
    Native(41, Collective::kAlltoallw, "native:scattered", kMpich),
    Native(42, Collective::kBarrier, "native:bruck", kOpenMpi),
    Native(43, Collective::kBarrier, "native:dissemination", kMpich),
    Native(44, Collective::kBarrier, "native:double_ring", kOpenMpi),
    Native(45, Collective::kBarrier, "native:linear", kOpenMpi),
    Native(46, Collective::kBarrier, "native:nb", kMpich),
    Native(47, Collective::kBarrier, "native:recursive_doubling", kOpenMpi),
    Native(48, Collective::kBarrier, "native:smp", kMpich),
    Native(49, Collective::kBarrier, "native:tree", kOpenMpi),
    Native(50, Collective::kBarrier, "native:two_proc", kOpenMpi),
    Native(51, Collective::kBcast, "native:basic_linear", kOpenMpi),
    Native(52, Collective::kBcast, "native:binary_tree", kOpenMpi),
    Native(53, Collective::kBcast, "native:binomial", kOpenMpi | kMpich),
    Native(54, Collective::kBcast, "native:chain", kOpenMpi),
    Native(55, Collective::kBcast, "native:knomial", kOpenMpi),
    Native(56, Collective::kBcast, "native:nb", kMpich),
    Native(57, Collective::kBcast, "native:pipeline", kOpenMpi),
    Native(58, Collective::kBcast, "native:scatter_allgather", kOpenMpi),
    Native(59, Collective::kBcast, "native:scatter_allgather_ring", kOpenMpi),
    Native(60, Collective::kBcast, "native:scatter_recursive_doubling_allgather", kMpich),
    Native(61, Collective::kBcast, "native:scatter_ring_allgather", kMpich),
    Native(62, Collective::kBcast, "native:smp", kMpich),
    Native(63, Collective::kBcast, "native:split_binary_tree", kOpenMpi),
    Native(64, Collective::kExscan, "native:linear", kOpenMpi),
    Native(65, Collective::kExscan, "native:nb", kMpich),
    Native(66, Collective::kExscan, "native:recursive_doubling", kOpenMpi | kMpich),
    Native(67, Collective::kGather, "native:basic_linear", kOpenMpi),
    Native(68, Collective::kGather, "native:binomial", kOpenMpi | kMpich),
    Native(69, Collective::kGather, "native:linear_sync", kOpenMpi),
    Native(70, Collective::kGather, "native:nb", kMpich),
    Native(71, Collective::kGatherv, "native:linear", kMpich),
    Native(72, Collective::kGatherv, "native:nb", kMpich),
    Native(73, Collective::kReduce, "native:binary", kOpenMpi),
    Native(74, Collective::kReduce, "native:binomial", kOpenMpi | kMpich),
    Native(75, Collective::kReduce, "native:chain", kOpenMpi),
    Native(76, Collective::kReduce, "native:in-order_binary", kOpenMpi),
    Native(77, Collective::kReduce, "native:linear", kOpenMpi),
    Native(78, Collective::kReduce, "native:nb", kMpich),
    Native(79, Collective::kReduce, "native:pipeline", kOpenMpi),
    Native(80, Collective::kReduce, "native:rabenseifner", kOpenMpi),
    Native(81, Collective::kReduce, "native:reduce_scatter_gather", kMpich),
    Native(82, Collective::kReduce, "native:smp", kMpich),
    Native(83, Collective::kReduceScatter, "native:butterfly", kOpenMpi),
    Native(84, Collective::kReduceScatter, "native:nb", kMpich),
    Native(85, Collective::kReduceScatter, "native:non-overlapping", kOpenMpi),
    Native(86, Collective::kReduceScatter, "native:noncommutative", kMpich),
    Native(87, Collective::kReduceScatter, "native:pairwise", kMpich),
    Native(88, Collective::kReduceScatter, "native:recursive_doubling", kMpich),
    Native(89, Collective::kReduceScatter, "native:recursive_halving", kOpenMpi | kMpich),
    Native(90, Collective::kReduceScatter, "native:ring", kOpenMpi),
    Native(91, Collective::kReduceScatterBlock, "native:basic_linear", kOpenMpi),
    Native(92, Collective::kReduceScatterBlock, "native:butterfly", kOpenMpi),
    Native(93, Collective::kReduceScatterBlock, "native:nb", kMpich),
    Native(94, Collective::kReduceScatterBlock, "native:noncommutative", kMpich),
    Native(95, Collective::kReduceScatterBlock, "native:pairwise", kMpich),
    Native(96, Collective::kReduceScatterBlock, "native:recursive_doubling", kOpenMpi | kMpich),
    Native(97, Collective::kReduceScatterBlock, "native:recursive_halving", kOpenMpi | kMpich),
    Native(98, Collective::kScan, "native:linear", kOpenMpi),
    Native(99, Collective::kScan, "native:nb", kMpich),
    Native(100, Collective::kScan, "native:recursive_doubling", kOpenMpi | kMpich),
    Native(101, Collective::kScan, "native:smp", kMpich),
    Native(102, Collective::kScatter, "native:basic_linear", kOpenMpi),
    Native(103, Collective::kScatter, "native:binomial", kOpenMpi | kMpich),
    Native(104, Collective::kScatter, "native:linear_nb", kOpenMpi),
    Native(105, Collective::kScatter, "native:nb", kMpich),
    Native(106, Collective::kScatterv, "native:linear", kMpich),
    Native(107, Collective::kScatterv, "native:nb", kMpich),
    // Open MPI's segmenting algorithms with a forced segment size.
    Native(108, Collective::kAllreduce, "native:segmented_ring_seg16k", kOpenMpi, kSegSmall),
    Native(109, Collective::kAllreduce, "native:segmented_ring_seg128k", kOpenMpi, kSegLarge),
    Native(110, Collective::kBcast, "native:binary_tree_seg16k", kOpenMpi, kSegSmall),
    Native(111, Collective::kBcast, "native:binary_tree_seg128k", kOpenMpi, kSegLarge),
    Native(112, Collective::kBcast, "native:binomial_seg16k", kOpenMpi, kSegSmall),
    Native(113, Collective::kBcast, "native:binomial_seg128k", kOpenMpi, kSegLarge),
    Native(114, Collective::kBcast, "native:chain_seg16k", kOpenMpi, kSegSmall),
    Native(115, Collective::kBcast, "native:chain_seg128k", kOpenMpi, kSegLarge),
    Native(116, Collective::kBcast, "native:knomial_seg16k", kOpenMpi, kSegSmall),
    Native(117, Collective::kBcast, "native:knomial_seg128k", kOpenMpi, kSegLarge),
    Native(118, Collective::kBcast, "native:pipeline_seg16k", kOpenMpi, kSegSmall),
    Native(119, Collective::kBcast, "native:pipeline_seg128k", kOpenMpi, kSegLarge),
    Native(120, Collective::kBcast, "native:split_binary_tree_seg16k", kOpenMpi, kSegSmall),
    Native(121, Collective::kBcast, "native:split_binary_tree_seg128k", kOpenMpi, kSegLarge),
    Native(122, Collective::kReduce, "native:binary_seg16k", kOpenMpi, kSegSmall),
    Native(123, Collective::kReduce, "native:binary_seg128k", kOpenMpi, kSegLarge),
    Native(124, Collective::kReduce, "native:binomial_seg16k", kOpenMpi, kSegSmall),
    Native(125, Collective::kReduce, "native:binomial_seg128k", kOpenMpi, kSegLarge),
    Native(126, Collective::kReduce, "native:chain_seg16k", kOpenMpi, kSegSmall),
    Native(127, Collective::kReduce, "native:chain_seg128k", kOpenMpi, kSegLarge),
    Native(128, Collective::kReduce, "native:in-order_binary_seg16k", kOpenMpi, kSegSmall),
    Native(129, Collective::kReduce, "native:in-order_binary_seg128k", kOpenMpi, kSegLarge),
    Native(130, Collective::kReduce, "native:pipeline_seg16k", kOpenMpi, kSegSmall),
    Native(131, Collective::kReduce, "native:pipeline_seg128k", kOpenMpi, kSegLarge),
    // Open MPI's hierarchical component, enabled for a whole job at launch
    // (`--mca coll_han_priority 100`; read-only at run time): the
    // collectives it implements in 4.1.
    AtLaunch(132, Collective::kAllgather, "native:han", kOpenMpi),
    AtLaunch(133, Collective::kAllgatherv, "native:han", kOpenMpi),
    AtLaunch(134, Collective::kAllreduce, "native:han", kOpenMpi),
    AtLaunch(135, Collective::kBarrier, "native:han", kOpenMpi),
    AtLaunch(136, Collective::kBcast, "native:han", kOpenMpi),
    AtLaunch(137, Collective::kGather, "native:han", kOpenMpi),
    AtLaunch(138, Collective::kReduce, "native:han", kOpenMpi),
    AtLaunch(139, Collective::kScatter, "native:han", kOpenMpi),
};

}  // namespace

const AlgorithmInfo& InfoOf(Algorithm a) { return kAlgorithms[IndexOf(a)]; }

// kCollectiveInfos (catalog.h) is indexed by the enum.
constexpr bool CollectivesInEnumOrder() {
  for (int i = 0; i < kNumCollectives; ++i) {
    if (IndexOf(kCollectiveInfos[i].id) != i) return false;
  }
  return true;
}
static_assert(CollectivesInEnumOrder(), "kCollectiveInfos out of the enum's order");

std::optional<Collective> ParseCollective(std::string_view name) {
  for (const CollectiveInfo& info : kCollectiveInfos) {
    if (info.name == name) return info.id;
  }
  return std::nullopt;
}

std::optional<Algorithm> ParseAlgorithm(std::string_view name, Collective c) {
  for (const AlgorithmInfo& info : kAlgorithms) {
    if (info.name == name && Implements(info.id, c)) return info.id;
  }
  return std::nullopt;
}

bool IsAlgorithmName(std::string_view name) {
  for (const AlgorithmInfo& info : kAlgorithms) {
    if (info.name == name) return true;
  }
  return false;
}

bool Implements(Algorithm a, Collective c) {
  return a == Algorithm::kDefault || InfoOf(a).collective == c;
}

std::optional<Algorithm> PackedFormOf(Collective c) {
  return ParseAlgorithm(std::string(InfoOf(c).name) + "_as_packed", c);
}

bool IsHierarchical(Algorithm a) {
  switch (a) {
    case Algorithm::kAllreduceAsNodes:
    case Algorithm::kAllreduceAsLanes:
    case Algorithm::kBcastAsNodes:
    case Algorithm::kBcastAsLanes:
    case Algorithm::kReduceAsNodes:
    case Algorithm::kAllgatherAsNodes:
    case Algorithm::kGatherAsNodes:
    case Algorithm::kBarrierAsNodes:
      return true;
    default:
      return false;
  }
}

bool IsDatatypeForm(Algorithm a) {
  return InfoOf(a).guideline.substr(0, 3) == "DGL";
}

bool RedescribesOnly(Algorithm a) {
  const std::string_view g = InfoOf(a).guideline;
  return g == "DGL1" || g == "DGL4";
}

std::string DatatypeFormNames(Collective c) {
  std::string out;
  for (int i = 0; i < kNumAlgorithms; ++i) {
    const Algorithm a = static_cast<Algorithm>(i);
    if (!IsDatatypeForm(a) || !Implements(a, c)) continue;
    out += (out.empty() ? "" : " or ") + std::string(InfoOf(a).name);
  }
  return out;
}

bool HasDatatypeForms(Collective c) { return !DatatypeFormNames(c).empty(); }

std::optional<Algorithm> FindNative(Collective c, std::string_view library_name) {
  for (int i = IndexOf(Algorithm::kFirstNative); i < kNumAlgorithms; ++i) {
    const AlgorithmInfo& info = kAlgorithms[i];
    if (info.collective == c && info.segment == 0 && info.library_name() == library_name) {
      return info.id;
    }
  }
  return std::nullopt;
}

bool AtLaunchOnly(Algorithm a) { return InfoOf(a).at_launch; }

uint8_t NativeLibraryOf(std::string_view library) {
  if (library == "Open MPI") return kOpenMpi;
  if (library == "MPICH") return kMpich;
  return 0;
}

// The table's order is the ids' order: a wrong count or a misplaced entry
// would give an algorithm another's name.
static_assert([] {
  for (int i = 0; i < kNumAlgorithms; ++i) {
    if (IndexOf(kAlgorithms[i].id) != i) return false;
  }
  return true;
}());

}  // namespace colltune
