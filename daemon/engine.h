// The decision engine: from a profile's measurements to its decision rules,
// and the violations (guideline, selection, monotony) they reveal.
//
// For every collective and measured message size:
//  * each algorithm's evidence is its per-launch median latencies (launch to
//    launch variance is real: seed 004, ReproMPI);
//  * an algorithm can replace `default` only if it is significantly faster
//    and its median of medians is faster by at least the margin:
//    t <= (1 - margin) * t_default, the margin being 10 % for a mock-up
//    (seed 004) and 3 % for one of the library's own algorithms, which costs
//    no scratch memory and runs the library's own code (docs/architecture.md
//    has the measurements). Significantly faster means either
//     - across launches: a one-sided Mann-Whitney test over the per-launch
//       medians says it is faster (p <= alpha, default 0.05), or
//     - within every launch (paired): in each of at least
//       `min_paired_launches` launches, and in every launch that measured it,
//       its repetitions are faster than default's repetitions of that launch
//       by the same test (LaunchMedian::p_faster_than_default <= alpha). This
//       is an intersection-union test (its p-value is the largest of the
//       launches', its level alpha): it asks the algorithm to win in every
//       placement seen, and it still decides when placements move both
//       algorithms together. On an oversubscribed node whole launches switch
//       between a fast and a slow regime (12 against 23 us for the same call
//       here), so the per-launch medians of two algorithms overlap even when
//       one is faster in every launch, and the test across launches alone
//       needs as many launches again to see it;
//    An algorithm also replaces `default` if it is as fast and significantly
//    steadier: its median and its lower quartile within `tie_band` (3 %) of
//    default's, and its per-launch upper quartiles lower than default's by
//    the test across launches and the margin. Some calls run in two modes
//    from repetition to repetition, default included, and a median then
//    lands in either mode; the upper quartile is in the slow mode whenever
//    that holds more than a quarter of the calls, the lower quartile in the
//    fast mode whenever that does, so a candidate must not be slower in
//    default's fast mode to win by being faster in its slow one;
//  * every regime counts (common/regime.h). Where a point was timed in more
//    regimes than sync (back to back, after uneven work), an algorithm
//    replaces default only if it wins at least one regime by the tests
//    above (each regime compared with default's series of that regime) and
//    is slower than default in none: its median over launches at most
//    `regime_slack` above default's in every regime, and in no launch of any
//    regime more than the mock-up margin above default's median of that
//    launch (a winner that flips with the launch is not a winner). It must
//    have been timed in every regime default was (campaigns time only the
//    candidates that may still win in the others). Candidates are then
//    ranked by the geometric mean over the regimes of their time against
//    default's. A point whose launch declared regimes default lacks there (a
//    launch cut short between regimes) is left out whole: no point is decided
//    on part of its evidence. Points timed in sync alone (campaigns from
//    before regimes) are decided on sync, and their ranges carry no regime
//    evidence, which `colltune table` and the web view mark;
//  * among those, the one with the lowest median wins (within `tie_band` of
//    it, the one with the lowest upper quartile), with hysteresis: the
//    current table's choice keeps its place while it still qualifies, unless
//    the newcomer beats it by the same test and margin. Ties and noise keep
//    `default`, and decisions do not flap between close alternatives.
// Decided sizes then cover the whole size axis: each owns the sizes nearest
// to it on a log scale (boundaries at geometric midpoints), the first range
// starts at 0, the last has no upper bound, and neighbours with the same
// algorithm merge.
//
// Online evidence (job reports) comes per size bucket, as each job's median
// latency per algorithm. Its weight is explicit: in a bucket where the
// table's current choice has reports from at least `min_jobs` distinct jobs,
// online evidence decides the bucket, by the same test and margin against
// the current choice (so the incumbent stays unless beaten, and a challenger
// needs `min_jobs` jobs of its own); elsewhere campaign evidence decides.
// One job is one sample, whatever it reports, so no single job moves a
// decision to another algorithm. Back to default is different: a job's
// timed calls of the table's choice and its explored calls of default ran
// in the same program, in its own regime (back to back, after its own
// work), which no campaign reproduces exactly. Where, within one job whose
// sender is known, default was faster than the campaign's choice by the
// choice's margin (each side with `revert_min_calls` timed calls, default's
// explored), the bucket goes back to default, as
// online evidence, while that job's report is among the newest the engine
// weighs; a table change must make programs faster, and this one did not. Nor does a single user: an algorithm's online evidence counts
// only when its jobs come from at least `min_uids` distinct uids (the uids
// munged vouched for, colltuned --auth munge, or the kernel for the unix
// socket's peers; jobs of unknown senders, which colltuned --auth none
// accepts over TCP only with --insecure-accept-anonymous-uploads, never
// count). Finally administrators' pins override their ranges.
//
// Irregular collectives are measured at (block-size distribution, size)
// points; at a size, an algorithm replaces default if it is the choice at a
// strict majority of the distributions and default is significantly faster
// than it, by the margin, at none. Those keyed on the total size
// (allgatherv, reduce_scatter: SizeKey::kTotalBytes) are decided per size
// and get ranges as regular ones do; those keyed on no size (gatherv,
// scatterv, alltoallv, alltoallw) get one decision for all calls, over all
// their points. Barrier, keyed on nothing and regular, is measured at size 0
// and so gets one decision too.
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
  double native_margin = 0.03;  // a library's own algorithm's margin (see above)
  double alpha = 0.05;  // significance level of the rank tests
  int min_jobs = 3;     // online: distinct jobs per side before it counts
  int min_uids = 2;     // online: distinct uids per side before it counts
  // Online: one job reverts a bucket to default when, in that job, its
  // explored default calls ran faster than the calls of the campaign's
  // choice by that choice's margin, each side with at least this many timed
  // calls (engine.h, "Online evidence"); 0 switches it off.
  int64_t revert_min_calls = 16;
  // Launches the paired (within-launch) test needs; 0 switches it off.
  int min_paired_launches = 3;
  // Candidates that beat default and whose medians are within this fraction
  // of the fastest's are ranked by their upper quartiles instead (engine.cc,
  // DecideSize); 0 switches the tie-break off.
  double tie_band = 0.03;
  // How much slower than default a candidate may be, median over launches,
  // in a regime it does not win (engine.h, "every regime counts").
  double regime_slack = 0.03;
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
};

// Guideline violations (default significantly slower than a mock-up, by
// either test of the decisions at the same level alpha, without a margin), selection violations (the same against
// the library's own algorithms) and monotony violations (default
// significantly faster at the next larger measured size).
std::vector<ViolationFound> FindViolations(
    const std::vector<LaunchMedian>& points, const EngineOptions& options);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_ENGINE_H_
