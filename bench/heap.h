// The state of the C library's heap that a campaign measures in.
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
// before. Jobs in the other state are judged by their own timings (online
// evidence).
#ifndef COLLTUNE_BENCH_HEAP_H_
#define COLLTUNE_BENCH_HEAP_H_

#include <string>

namespace colltune::bench {

// Sets the heap's state before anything is measured; returns what it did,
// for the launch's summary line ("fixed: ...", "as MALLOC_... sets it", ...).
std::string FixHeap();

}  // namespace colltune::bench

#endif  // COLLTUNE_BENCH_HEAP_H_
