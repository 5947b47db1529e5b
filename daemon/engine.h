// The decision engine: from a profile's campaign measurements, its jobs'
// online evidence, the current rules and the pins to its decision rules; and
// the violations (guideline, selection, monotony) the measurements reveal.
//
// What it promises: a range leaves `default` only for an algorithm that is
// significantly faster by the margin (10 % for a mock-up, 3 % for one of the
// library's own or a datatype form that only redescribes the data) in at
// least one regime and slower in none, across launches or within every
// launch; noise and ties keep `default`; the current choice
// keeps its range unless beaten by the same test (no flapping); a size
// where the next smaller size's choice is level with its fastest keeps that
// choice (no alternating ranges); a point is
// decided on all of its evidence or not at all; decided sizes tile the whole
// size axis; no single job or uid moves a decision away from `default`, and
// a job that ran `default` faster than the choice takes the range back. The
// rules in full, and why: docs/architecture.md, "The daemon".
#ifndef COLLTUNE_DAEMON_ENGINE_H_
#define COLLTUNE_DAEMON_ENGINE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/catalog.h"
#include "common/regime.h"
#include "common/table.h"

namespace colltune::daemon {

struct EngineOptions {
  double margin = 0.10;         // a mock-up's margin over default (seed 004's 10%)
  double native_margin = 0.03;  // a library's own algorithm's (and DGL1/DGL4 forms')
  double alpha = 0.05;  // significance level of the rank tests
  int min_jobs = 3;     // online: distinct jobs per side before it counts
  int min_uids = 2;     // online: distinct uids per side before it counts
  // Online: one job reverts a bucket to default when, in that job, its
  // explored default calls ran faster than the calls of the campaign's
  // choice by that choice's margin, each side with at least this many timed
  // calls (docs/architecture.md, online evidence); 0 switches it off.
  int64_t revert_min_calls = 16;
  // Launches the paired (within-launch) test needs; 0 switches it off.
  int min_paired_launches = 3;
  // Candidates that beat default and whose medians are within this fraction
  // of the fastest's are ranked by their upper quartiles instead (engine.cc,
  // DecideSize); 0 switches the tie-break off.
  double tie_band = 0.03;
  // How much slower than default a candidate may be, median over launches,
  // in a regime it does not win (docs/architecture.md, regimes first).
  double regime_slack = 0.03;
  // Launches a candidate must have been timed in, in every regime, before
  // it may replace default (fewer where default itself has fewer): one
  // launch's back-to-back median cannot show that a choice survives the
  // next launch. 0 switches it off.
  int min_regime_launches = 3;
  // Held-out launches (a campaign's validation, `colltune campaign
  // --validate`) a point needs in every regime before they may take its
  // choice back (docs/architecture.md, "Held-out validation"); 0 switches
  // the check off.
  int min_held_out_launches = 3;
  // How much slower than default, in the median over the held-out launches
  // of the per-launch ratio, a choice may be in a regime before they take it
  // back: what colltune promises programs (at least 0.95x default in every
  // regime). The campaign's regime_slack is tighter because it decides on
  // more launches; three held-out launches need evidence of harm, not
  // noise around level (docs/results-2026-11-29.md, "Held-out validation").
  double held_out_slack = 0.05;
  // Regime switches (docs/architecture.md, "Regime switching"): where, back
  // to back or after uneven work, another algorithm is faster than the
  // range's choice by this margin across launches (and faster than default
  // there), the range names it for that regime; 0 switches them off. Wider
  // than a choice's margins: a job pays the shim's probes, and a regime the
  // probes misread runs the switch where it did not win.
  double switch_margin = 0.10;
  // A candidate replaces default, or becomes a switch, only if it saves at
  // least this many seconds a call there (its median against default's or
  // the choice's), besides the relative margin. Campaigns time an algorithm
  // without the shim's dispatch, which a job pays on every call of a range
  // that runs something else (tens of nanoseconds, more for a native
  // algorithm forced through MPI_T); and at calls of a fraction of a
  // microsecond a launch's placement moves every algorithm by more than
  // that. A gain smaller than the dispatch is a loss in the program
  // (docs/results-2026-11-29.md, "Gains smaller than the dispatch"). 0: off.
  double min_saving = 50e-9;
};

// The median latency of one point in one launch.
struct LaunchMedian {
  Collective collective = Collective::kAllgather;
  Algorithm algorithm = Algorithm::kDefault;
  int64_t msg_bytes = 0;
  int64_t launch = 0;    // identifies the launch (unique in the profile)
  int64_t campaign = 0;  // the campaign it belongs to
  double median_seconds = 0;
  std::string problem;   // irregular collectives: the block-size distribution
  // One-sided Mann-Whitney p that this algorithm's repetitions are faster than
  // default's in the same launch; -1: unknown (then the paired test cannot
  // use this algorithm at this point).
  double p_faster_than_default = -1;
  // The upper quartile of its repetitions in the launch; 0: unknown. It
  // breaks ties between candidates whose medians are within `tie_band`.
  double upper_quartile_seconds = 0;
  // The lower quartile of its repetitions in the launch; 0: unknown (then
  // the algorithm cannot replace default by being steadier).
  double lower_quartile_seconds = 0;
  Regime regime = Regime::kSync;  // how it was timed
  // The regimes its launch declared it times every point in.
  RegimeSet launch_regimes = kSyncOnly;
  // Timed by a validation launch: it checks the decisions the other
  // launches made and never makes one.
  bool held_out = false;
};

// One job's median latency for one (collective, size bucket, algorithm).
struct JobMedian {
  Collective collective = Collective::kAllgather;
  Algorithm algorithm = Algorithm::kDefault;
  uint64_t min_bytes = 0, max_bytes = 0;  // the bucket
  int64_t job = 0;                        // distinct per job
  double median_seconds = 0;
  int64_t uid = -1;  // who sent the job's reports; -1: not authenticated
  int64_t timed_calls = 0;     // behind the median, over the job's runs
  int64_t explored_calls = 0;  // of those, calls that explored the algorithm
};

enum class Source { kCampaign, kOnline, kPin };
std::string_view SourceName(Source s);  // "campaign", "online", "pin"

// Why a range has its algorithm. For online ranges, launches count jobs.
struct Evidence {
  double p_value = 1;          // largest over the range's sizes
  int launches_default = 0;    // fewest over the range's sizes
  int launches_algorithm = 0;
  std::vector<int64_t> campaigns;  // sorted, unique
  bool pinned = false;
  Source source = Source::kCampaign;
  // Per regime the range's sizes were timed in, weakest over its sizes;
  // empty where they were timed synchronized only.
  std::vector<RegimeEvidence> regimes;
};

struct Decision {
  Rule rule;
  Evidence evidence;
};

// An administrator's decision for a byte range.
struct PinnedRange {
  Collective collective = Collective::kAllgather;
  uint64_t min_bytes = 0;
  uint64_t max_bytes = kNoUpperBound;
  Algorithm algorithm = Algorithm::kDefault;
};

// Decisions sorted by (collective, min_bytes), covering [0, inf) for every
// collective with a decided size or a pin; `default` ranges included.
// `current` is the profile's current table (for hysteresis), maybe empty.
std::vector<Decision> ComputeDecisions(const std::vector<LaunchMedian>& points,
                                       const std::vector<JobMedian>& online,
                                       const std::vector<Rule>& current,
                                       const std::vector<PinnedRange>& pins,
                                       const EngineOptions& options);
// ComputeDecisions in two steps: the campaign's decisions alone (sorted, no
// online evidence, no pins), a function of `points` and `current` only, so
// a caller may keep them while neither changes; then the online evidence
// and the pins laid over them.
std::vector<Decision> CampaignDecisions(const std::vector<LaunchMedian>& points,
                                        const std::vector<Rule>& current,
                                        const EngineOptions& options);
std::vector<Decision> FinishDecisions(std::vector<Decision> campaign,
                                      const std::vector<JobMedian>& online,
                                      const std::vector<Rule>& current,
                                      const std::vector<PinnedRange>& pins,
                                      const EngineOptions& options);
// Campaign evidence only.
inline std::vector<Decision> ComputeDecisions(
    const std::vector<LaunchMedian>& points, const std::vector<Rule>& current,
    const std::vector<PinnedRange>& pins, const EngineOptions& options) {
  return ComputeDecisions(points, {}, current, pins, options);
}

// Lays `pins` over `decisions` (sorted as ComputeDecisions returns them), in
// order, so a later pin wins where pins overlap; the parts of ranges a pin
// covers give way to it. Used by ComputeDecisions and by rollbacks, which
// must respect pins too.
void ApplyPins(const std::vector<PinnedRange>& pins,
               std::vector<Decision>* decisions);

// True if both decide the same algorithms for the same ranges (speedups and
// evidence may differ).
bool SameDecisions(const std::vector<Rule>& a, const std::vector<Rule>& b);

// What changed from `before` to `after`, size by size: one "; "-separated
// item per maximal byte range whose algorithm changed, e.g.
// "allreduce 8192-inf: default -> allreduce_as_reduce_bcast".
std::string DescribeChanges(const std::vector<Rule>& before,
                            const std::vector<Rule>& after);

// What a violation says about the library.
enum class ViolationKind {
  // default is significantly slower than a mock-up: the library breaks one of
  // seed 004's performance guidelines (its collective is slower than a
  // composition of its other collectives).
  kGuideline,
  // default is significantly slower than one of the library's own algorithms
  // (native:<name>) for the same collective: its fixed decision rules select
  // a slower algorithm than one it has, a selection bug rather than a missing
  // guideline (so it is reported apart, and fixing it needs no mock-up).
  kSelection,
  // default is significantly faster at the next larger measured size.
  kMonotony,
};
std::string_view ViolationKindName(ViolationKind k);  // "guideline", ...

struct ViolationFound {
  ViolationKind kind = ViolationKind::kGuideline;
  Collective collective = Collective::kAllgather;
  // The faster mock-up (guideline) or native algorithm (selection); default
  // for monotony.
  Algorithm algorithm = Algorithm::kDefault;
  int64_t msg_bytes = 0;
  int64_t larger_bytes = 0;  // monotony only
  double factor = 0;
  double p_value = 1;
  int launches = 0;
  // Seed 003's guidelines: the derived datatype's layout the point was
  // measured with; contiguous for the others.
  LayoutKey layout;
  // Guideline and selection violations: why the engine's tests keep the
  // faster algorithm from replacing default here (a violation is found in
  // the synchronized regime without a margin; a decision needs the margin
  // and every regime), empty if they do not; and what the current table
  // (FindViolations' `current`) runs at the point.
  std::string not_chosen;
  Algorithm table_algorithm = Algorithm::kDefault;
};

// Guideline violations (default significantly slower than a mock-up, by
// either test of the decisions at the same level alpha, without a margin), selection violations (the same against
// the library's own algorithms) and monotony violations (default
// significantly faster at the next larger measured size); and seed 003's
// (the packed form faster than the derived-datatype call at a layout's point).
std::vector<ViolationFound> FindViolations(const std::vector<LaunchMedian>& points,
                                           const EngineOptions& options,
                                           const std::vector<Rule>& current = {});

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_ENGINE_H_
