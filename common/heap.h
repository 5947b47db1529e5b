// The state of the C library's heap that campaigns measure in and that
// jobs under the shim run in.
//
// Open MPI allocates temporary buffers inside many collectives, per call.
// Whether those cost page faults on every call depends on the process's
// allocation history: glibc trims the top of its heap on free() below a
// threshold that it raises only after freeing a large mmap()ed block, and
// the same collective can then run an order of magnitude slower in one
// process than in the next (docs/results-2026-11-28.md, "The 'first'
// column, and glibc"). A benchmark of one collective and a campaign over
// all of them would then rank algorithms in different states. FixHeap sets
// the thresholds so that buffers up to 32 MiB come from the heap and the
// heap is never trimmed by less than 64 MiB: the state a process reaches
// once it has freed a large block, which is what full campaigns measured
// before. The shim sets the same state at MPI_Init where a site asks for it
// (COLLTUNE_HEAP=fixed): a program that allocates its buffers once and never
// frees a large block otherwise stays in glibc's initial state for good,
// where some collectives run many times slower, while others run faster
// there, on buffers the state places differently
// (docs/results-2026-11-28.md, "A program's heap"). Uses nothing beyond the
// C library: it is compiled into the shim.
#ifndef COLLTUNE_COMMON_HEAP_H_
#define COLLTUNE_COMMON_HEAP_H_

#include <string>

namespace colltune {

// Sets the heap's state before anything is measured; returns what it did,
// for a benchmark launch's summary line or a job's log ("fixed: ...",
// "as MALLOC_... sets it", ...).
std::string FixHeap();

}  // namespace colltune

#endif  // COLLTUNE_COMMON_HEAP_H_
