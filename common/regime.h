// The regimes in which campaigns and evaluations time a collective: the ways
// programs call collectives, not only the way a benchmark would.
//
//  * sync: every repetition starts from a barrier, one call, the slowest
//    rank's time (seed 004's latency).
//  * loop: back to back. One repetition is a loop of calls after a barrier;
//    each rank times the whole loop, the slowest rank's time divided by the
//    calls. The next call starts while the previous one drains, so an
//    algorithm whose root or last rank is the bottleneck pays for it here,
//    and one that lets ranks run ahead (a linear scan) gains.
//  * imbalance: the same loop, but before each call every rank works for a
//    delay of its own (drawn reproducibly, uniform up to default's time per
//    call back to back: the call's own time in a program). A repetition is the time beyond the work: the slowest rank's
//    loop time minus the largest total delay of one rank, divided by the
//    calls. An algorithm that makes early ranks wait for late ones charges
//    the program for its imbalance; one that lets them go on does not.
//
// Names are part of the contract between bench, daemon, CLI and web view.
// Plain C++17: shared with the benchmark and the daemon.
#ifndef COLLTUNE_COMMON_REGIME_H_
#define COLLTUNE_COMMON_REGIME_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

enum class Regime : uint8_t { kSync = 0, kLoop = 1, kImbalance = 2 };
inline constexpr int kNumRegimes = 3;
inline constexpr Regime kAllRegimes[kNumRegimes] = {Regime::kSync, Regime::kLoop,
                                                    Regime::kImbalance};

constexpr int IndexOf(Regime r) { return static_cast<int>(r); }

// "sync", "loop", "imbalance".
std::string_view NameOf(Regime r);
// The regime of a name; "" is sync (what was stored before regimes existed).
std::optional<Regime> ParseRegime(std::string_view name);

// A set of regimes as a bit mask (bit IndexOf(r)).
using RegimeSet = uint8_t;
constexpr RegimeSet Bit(Regime r) { return static_cast<RegimeSet>(1u << IndexOf(r)); }
inline constexpr RegimeSet kSyncOnly = Bit(Regime::kSync);
inline constexpr RegimeSet kEveryRegime =
    Bit(Regime::kSync) | Bit(Regime::kLoop) | Bit(Regime::kImbalance);

// How a decided algorithm compared with default in one regime (proto
// RegimeEvidence).
struct RegimeEvidence {
  Regime regime = Regime::kSync;
  double speedup = 0;  // default's time / the algorithm's
  double p_value = 1;  // of "faster than default"
  bool won = false;    // significantly faster by the margin
};

// The stored form, "sync:1.25:0.01:1,loop:0.99:1:0" (regime, speedup,
// p-value, won); "" for none. Parse returns false on anything else.
std::string FormatRegimeEvidence(const std::vector<RegimeEvidence>& evidence);
bool ParseRegimeEvidence(std::string_view text, std::vector<RegimeEvidence>* out);

// "sync,loop,imbalance" (in that order) and back; Parse returns false on an
// unknown or repeated name, "" being sync alone.
std::string FormatRegimeSet(RegimeSet set);
bool ParseRegimeSet(std::string_view text, RegimeSet* out);

}  // namespace colltune

#endif  // COLLTUNE_COMMON_REGIME_H_
