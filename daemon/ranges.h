// Decisions as ranges of the message-size key: laying one over others,
// merging equal neighbours, reading what is decided at a size. Internal to
// the engine.
#ifndef COLLTUNE_DAEMON_RANGES_H_
#define COLLTUNE_DAEMON_RANGES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/catalog.h"
#include "common/table.h"
#include "daemon/engine.h"

namespace colltune::daemon {

// Folds `e` into `into`, keeping the weaker of each: the larger p-value, the
// fewer launches, every campaign, and per regime (only those both were timed
// in; none if either was timed synchronized only) the smaller speedup, the
// larger p-value and a win only where both won.
void Weaken(Evidence* into, const Evidence& e);

// Lays `top` over the decisions of its collective: the parts of ranges it
// covers give way to it.
void Overlay(const Decision& top, std::vector<Decision>* decisions);

void Overlay(const PinnedRange& pin, std::vector<Decision>* decisions);

// Neighbours with the same algorithm and source become one range (overlays
// split ranges; equal pieces must not look like changes).
void Merge(std::vector<Decision>* decisions);

// The algorithm `decisions` give `bytes` of collective `c`.
Algorithm DecidedAt(const std::vector<Decision>& decisions, Collective c,
                    uint64_t bytes);

// True if every decided range meeting [lo, hi] of `c` says `a`.
bool DecidedThroughout(const std::vector<Decision>& decisions, Collective c,
                       uint64_t lo, uint64_t hi, Algorithm a);

std::string Range(const Rule& r);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_RANGES_H_
