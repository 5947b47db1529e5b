#include "common/quirks.h"

namespace colltune {
namespace {

constexpr std::string_view kUnordered =
    "combines operands out of rank order without checking the operation: wrong "
    "results for a non-commutative user operation at 2 to 5 processes "
    "(tests/mpi/natives_test.sh)";

constexpr std::string_view kTruncatesMixed =
    "aborts with \"Message truncated\" on blocks of 64 KiB and more of a datatype mixing "
    "int and double (a struct, with or without gaps), also with "
    "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=brucks and no colltune (a campaign over seed "
    "003's datatype grid, colltune-bench --datatypes struct:8)";

constexpr std::string_view kRingOutOfBuffer =
    "writes past the end of its temporary buffer when the datatype's data does not "
    "start at its origin (true lower bound not 0: a resized struct, a subarray), "
    "corrupting the heap (\"munmap_chunk(): invalid pointer\" at MPI_Finalize, valgrind: "
    "invalid writes in its receives) at 2 to 5 processes, also forced by "
    "coll_tuned_allreduce_algorithm with no colltune (tests/mpi/natives_test.sh)";

constexpr Quirk kQuirks[] = {
    {kOpenMpi, "4.1.4", "", Collective::kAllreduce, "ring", kFormNonCommutative, kUnordered},
    {kOpenMpi, "4.1.4", "", Collective::kAllreduce, "segmented_ring", kFormNonCommutative,
     kUnordered},
    {kOpenMpi, "4.1.4", "", Collective::kAllreduce, "ring", kFormShiftedType, kRingOutOfBuffer},
    {kOpenMpi, "4.1.4", "", Collective::kAllreduce, "segmented_ring", kFormShiftedType,
     kRingOutOfBuffer},
    {kOpenMpi, "4.1.4", "", Collective::kReduce, "chain", kFormNonCommutative, kUnordered},
    {kOpenMpi, "4.1.4", "", Collective::kReduce, "pipeline", kFormNonCommutative, kUnordered},
    {kOpenMpi, "4.1.4", "", Collective::kReduce, "binary", kFormNonCommutative, kUnordered},
    {kOpenMpi, "4.1.4", "", Collective::kReduce, "binomial", kFormNonCommutative, kUnordered},
    {kOpenMpi, "4.1.4", "", Collective::kReduceScatter, "recursive_halving",
     kFormNonCommutative, kUnordered},
    {kOpenMpi, "4.1.4", "", Collective::kReduceScatter, "ring", kFormNonCommutative,
     kUnordered},
    {kMpich, "4.0.2", "", Collective::kAlltoallw, "nb", kFormInPlace,
     "wrong data in place when the receive types differ between peers, also with "
     "MPIR_CVAR_ALLTOALLW_INTRA_ALGORITHM=nb and no colltune (MPICH's own alltoallw2 "
     "test: \"got 10 expected 100 for block=1\"; heap corruption with larger types; "
     "tests/mpi/natives_test.sh, per-block types)"},
    {kMpich, "4.0.2", "", Collective::kReduceScatterBlock, "noncommutative", kFormGappedType,
     "wrong results and heap corruption (\"double free or corruption\") on datatypes with "
     "gaps (MPI_DOUBLE_INT) (tests/mpi/natives_test.sh)"},
    {kMpich, "4.0.2", "", Collective::kReduceScatter, "noncommutative",
     kFormSizeNotPowerOfTwo | kFormUnequalCounts,
     "asserts that the communicator size is a power of two and every count equal, and "
     "aborts the job otherwise; its fallback does not catch it (tests/mpi/natives_test.sh)"},
    {kMpich, "4.0.2", "", Collective::kReduceScatter, "noncommutative", kFormGappedType,
     "wrong results and heap corruption (\"munmap_chunk(): invalid pointer\") on "
     "datatypes with gaps (a resized struct, a user operation) at 2 and 4 processes "
     "(tests/mpi/natives_test.sh)"},
    {kMpich, "4.0.2", "", Collective::kAlltoall, "brucks", kFormMixedTypes, kTruncatesMixed},
    {kMpich, "4.0.2", "", Collective::kReduceScatter, "pairwise", kFormInPlace,
     "aborts on an in-place call (\"memcpy argument memory ranges overlap\" in its pack "
     "routine) (tests/mpi/natives_test.sh)"},
};

// The leading number of `s` from `*at`, moving past it and one separator.
long NextPart(std::string_view s, size_t* at) {
  long n = 0;
  while (*at < s.size() && s[*at] >= '0' && s[*at] <= '9') {
    n = n * 10 + (s[*at] - '0');
    ++*at;
  }
  if (*at < s.size() && s[*at] == '.') {
    ++*at;
  } else {
    *at = s.size();  // anything else ends the number ("4.1.4rc1" is 4.1.4)
  }
  return n;
}

}  // namespace

const Quirk* QuirksBegin() { return kQuirks; }
const Quirk* QuirksEnd() { return kQuirks + sizeof kQuirks / sizeof kQuirks[0]; }

int CompareVersions(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const long x = NextPart(a, &i), y = NextPart(b, &j);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

bool QuirkApplies(const Quirk& q, std::string_view version) {
  if (q.fixed_in.empty() || version.empty()) return true;
  if (version[0] < '0' || version[0] > '9') return true;
  return CompareVersions(version, q.fixed_in) < 0;
}

bool QuirkHolds(const Quirk& q, Algorithm a, uint8_t library, std::string_view version) {
  if (!IsNative(a)) return false;
  const AlgorithmInfo& info = InfoOf(a);
  return (q.library & library) && q.collective == info.collective &&
         q.algorithm == info.library_name() && QuirkApplies(q, version);
}

uint8_t QuirkFormsOf(Algorithm a, uint8_t library, std::string_view version) {
  uint8_t forms = 0;
  for (const Quirk* q = QuirksBegin(); q != QuirksEnd(); ++q) {
    if (QuirkHolds(*q, a, library, version)) forms |= q->forms;
  }
  return forms;
}

std::string QuirkFormNames(uint8_t forms) {
  static constexpr struct {
    uint8_t bit;
    std::string_view name;
  } kNames[] = {
      {kFormAny, "every call"},
      {kFormInPlace, "in place"},
      {kFormNonCommutative, "a non-commutative operation"},
      {kFormGappedType, "a datatype with gaps"},
      {kFormSizeNotPowerOfTwo, "a communicator size that is not a power of two"},
      {kFormUnequalCounts, "unequal counts"},
      {kFormMixedTypes, "a datatype mixing basic types"},
      {kFormShiftedType, "a datatype whose data does not start at its origin"},
  };
  std::string out;
  for (const auto& n : kNames) {
    if (!(forms & n.bit)) continue;
    if (!out.empty()) out += ", ";
    out += n.name;
  }
  return out;
}

bool HanGatherDefect(std::string_view open_mpi_version) {
  return CompareVersions(open_mpi_version, "4.1") >= 0 &&
         CompareVersions(open_mpi_version, "4.1.6") < 0;
}

}  // namespace colltune
