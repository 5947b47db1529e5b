// The quirks table: where an MPI library's own algorithm, forced, is wrong.
//
// Each row is a (library, versions, collective, algorithm, form) that returns
// wrong data, corrupts memory or aborts where the library's default does not,
// with the evidence. Rows come from the canary differential
// (tests/mpi/natives_test.sh runs every native algorithm of both libraries in
// every form against the library's default) or from independent suites.
// Neither the shim nor `colltune export` runs an algorithm in a form listed
// for the running library; the engine never chooses one that is wrong in
// every form; the daemon lists the rows as library defects.
//
// Plain C++17, no dependencies: compiled into the shim.
#ifndef COLLTUNE_COMMON_QUIRKS_H_
#define COLLTUNE_COMMON_QUIRKS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/catalog.h"

namespace colltune {

// The forms of a call a quirk is confined to, as bits. Each is the same on
// every rank of a call, so a verdict by form is rank-consistent.
enum QuirkForm : uint8_t {
  kFormAny = 1 << 0,             // every call
  kFormInPlace = 1 << 1,         // MPI_IN_PLACE (rooted collectives: any call,
                                 // since only the root says so)
  kFormNonCommutative = 1 << 2,  // a non-commutative reduction operation
  kFormGappedType = 1 << 3,      // a reduction's datatype has gaps
  kFormSizeNotPowerOfTwo = 1 << 4,
  kFormUnequalCounts = 1 << 5,   // MPI_Reduce_scatter's counts differ
  kFormMixedTypes = 1 << 6,      // the data's type signature mixes basic types
                                 // (int and double): signatures match, so
                                 // every rank sees the same
  kFormShiftedType = 1 << 7,     // a reduction's datatype whose data does not
                                 // start at its origin (true lower bound not 0);
                                 // like kFormGappedType, the same on every rank
                                 // because MPI wants one datatype in a reduction
};

struct Quirk {
  uint8_t library;              // a NativeLibrary bit
  std::string_view seen_in;     // the version the evidence is from
  std::string_view fixed_in;    // first version without it; "": all versions
  Collective collective;
  std::string_view algorithm;   // the library's name ("nb"); segmented
                                // variants share their algorithm's rows
  uint8_t forms;                // QuirkForm bits
  std::string_view evidence;    // what fails, and how it was found
};

// Every row, in a fixed order.
const Quirk* QuirksBegin();
const Quirk* QuirksEnd();

// Whether `q` holds for `version` of its library ("4.0.2"; an unparsable or
// empty version: yes).
bool QuirkApplies(const Quirk& q, std::string_view version);

// Whether row `q` is about native algorithm `a` under `library` (a
// NativeLibrary bit) at `version` (segmented variants: their algorithm's).
bool QuirkHolds(const Quirk& q, Algorithm a, uint8_t library, std::string_view version);

// The forms in which native algorithm `a` is wrong under `library` (a
// NativeLibrary bit) at `version`; 0 for none and for non-native algorithms.
uint8_t QuirkFormsOf(Algorithm a, uint8_t library, std::string_view version);

// "in place, a non-commutative operation" for a set of QuirkForm bits.
std::string QuirkFormNames(uint8_t forms);

// Compares dotted version numbers ("4.0.2" < "4.1"); non-digits end a part.
int CompareVersions(std::string_view a, std::string_view b);

// Open MPI's coll/han, when a job enables it, leaves MPI_Gather's root buffer
// untouched where a communicator's ranks are not placed node by node
// (open-mpi/ompi issue 11664; measured on 4.1.4): true for the 4.1 releases
// before the upstream fix. A whole-job defect, not one of a forced algorithm,
// so it is not a row above: the shim repairs it (shim/runtime/repairs.h) and
// `colltune export --format han-rules` sends gather to coll/tuned.
bool HanGatherDefect(std::string_view open_mpi_version);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_QUIRKS_H_
