// What `evaluate` concludes from its measurements, over one launch or
// several: per point, every candidate's median latency in each launch (and
// the medians of its even- and odd-numbered repetitions), and from them
// tuned/oracle and tuned/default.
//
// One launch is one placement of the processes on the cores; on a shared or
// oversubscribed node the winners change with it (the campaign's engine
// compares per-launch medians for that reason). Over several launches an
// algorithm's latency at a point is the median of its per-launch medians,
// and the oracle is the one algorithm fastest by that measure, not the
// fastest of each launch. The cross-validated oracle is picked on the
// even-numbered repetitions and timed on the odd-numbered ones (the fastest
// of some fifty noisy medians is biased low: the winner's curse). With
// several launches, the cross-launch oracle of launch k is picked on the
// other launches and timed in k, the median over k: on a shared node a
// launch's placement moves all candidates at once, a bias that splitting one
// launch's repetitions keeps. The paired oracle compares within launches:
// each candidate's time over tuned's in the same launch, the median of those
// ratios over the launches, and the candidate with the smallest. Medians of
// per-launch medians mix launches in different modes (the root's rank, a
// whole job running slow), and the candidate whose median lands in a fast
// launch wins against a tuned whose median lands in a slow one; the per-launch
// ratio cancels what moves every candidate of a launch alike.
//
// Records travel between the benchmark (which measures, one launch per job)
// and `colltune evaluate --launches N` (which combines them) as text, one
// point per line:
//   point <collective>[@<layout>] <bytes> <tuned algorithm> <n> {<algorithm>
//         <median_s> <even_median_s> <odd_median_s>}*n [<regime>]
// where @<layout> marks a point of seed 003's datatype grid (the data is a
// derived datatype of that layout, common/layout_class.h), the first algorithm is default, the last is "tuned" (the table's
// choice measured as a series of its own), names are the catalogue's and the
// regime (common/regime.h) is absent for sync. A point of one launch has a
// record per regime it was timed in; each regime is summarized apart.
#ifndef COLLTUNE_COMMON_EVALUATION_H_
#define COLLTUNE_COMMON_EVALUATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/catalog.h"
#include "common/regime.h"

namespace colltune::evaluation {

struct SeriesMedians {
  Algorithm algorithm = Algorithm::kDefault;
  double median = 0, even = 0, odd = 0;  // seconds
};

// One point of one launch.
struct PointRecord {
  Collective collective = Collective::kAllgather;
  std::string layout;  // "" for contiguous data, else a layout key ("tiled/8B")
  int64_t bytes = 0;
  Algorithm tuned = Algorithm::kDefault;
  std::vector<SeriesMedians> candidates;  // default first
  SeriesMedians tuned_series;
  Regime regime = Regime::kSync;
};

std::string FormatRecord(const PointRecord& r);
// False (with *error) on a malformed line.
bool ParseRecord(const std::string& line, PointRecord* r, std::string* error);

struct PointVerdict {
  Collective collective = Collective::kAllgather;
  std::string layout;  // as in PointRecord
  int64_t bytes = 0;
  Algorithm tuned = Algorithm::kDefault, oracle = Algorithm::kDefault;
  double t_default = 0, t_tuned = 0, t_oracle = 0;
  double t_tuned_cv = 0, t_oracle_cv = 0;
  double t_oracle_xl = 0;  // cross-launch; 0 with fewer than 2 launches
  // Paired: the smallest median over launches of a candidate's time over
  // tuned's in the same launch, of the candidates timed in more than half of
  // tuned's launches; 1 where none is faster; 0 without a tuned series.
  double vs_oracle_paired = 0;
  int launches = 0;
  bool slower = false;               // tuned's median beyond the margin above default's
  bool significantly_slower = false; // and by the test over launches (Summary)
};

struct Summary {
  std::vector<PointVerdict> points;
  double median_vs_oracle = 0, worst_vs_oracle = 0, mean_penalty = 0;
  double median_vs_oracle_cv = 0, worst_vs_oracle_cv = 0, mean_penalty_cv = 0;
  // Over the points with a cross-launch oracle (PointVerdict::t_oracle_xl).
  double median_vs_oracle_xl = 0;
  int cross_launch_points = 0;
  double median_vs_oracle_paired = 0;  // over PointVerdict::vs_oracle_paired
  double geomean_speedup = 0, median_vs_default = 0;
  const PointVerdict* worst = nullptr;
  const PointVerdict* worst_cv = nullptr;
  // Where the table changed the algorithm: points whose tuned median is
  // slower than default's by more than `margin`; and of those, the ones
  // significantly slower by the engine's own rule applied to the launches'
  // medians (one-sided Mann-Whitney at `alpha`, and by the margin: with 3
  // launches, tuned slower than default in all of them).
  int changed = 0, slower_than_default = 0, significantly_slower = 0;
  // The same two counts where the table keeps default: `tuned` then runs the
  // same code as `default`, so they count what noise alone does to two
  // series of one algorithm. A table whose changed points are slower at the
  // same rate has no regressions this evaluation can tell from noise.
  int unchanged = 0, unchanged_slower = 0, unchanged_significantly_slower = 0;
};

// Which points a summary is over: contiguous data (the plain rules'), or
// seed 003's datatype grid (the layout rules').
enum class Grid { kContiguous, kDatatypes };

// `launches[i]` holds launch i's records; of those of `regime` and `grid`, a
// point is identified by (collective, layout, bytes) and combined over the
// launches that measured it.
Summary Summarize(const std::vector<std::vector<PointRecord>>& launches, double margin,
                  double alpha = 0.05, Regime regime = Regime::kSync,
                  Grid grid = Grid::kContiguous);

// True if some record is of the datatype grid.
bool HasDatatypes(const std::vector<std::vector<PointRecord>>& launches);

// The regimes the records hold (sync always).
RegimeSet RegimesIn(const std::vector<std::vector<PointRecord>>& launches);

// The summary lines scripts grep ("evaluate: tuned/oracle median ..." for
// sync, "evaluate[loop]: ..." for the other regimes, "evaluate[datatypes]:"
// and "evaluate[datatypes,loop]:" for the datatype grid).
void PrintSummary(const Summary& s, size_t natives, int launches,
                  Regime regime = Regime::kSync, Grid grid = Grid::kContiguous);
// The lines on points slower than default, with the noise floor beside them
// (several launches: the across-launch test; `margin` as in Summarize).
void PrintSlowerThanDefault(const Summary& s, int launches, double margin, double alpha,
                            Regime regime = Regime::kSync, Grid grid = Grid::kContiguous);
// "bcast" for contiguous data, "bcast@tiled/8B" for the grid's.
std::string PointName(Collective c, const std::string& layout);

// A table runs one algorithm at a point whatever the caller's regime, so the
// oracle of one regime is out of its reach where that algorithm is slower
// than default in another regime (a program calling from a barrier would
// pay for what one calling back to back gains). The best single choice at a
// point is, of default and the candidates timed in every regime of the
// records, the one with the smallest geometric mean over the regimes of its
// time over default's, among those no more than `slack` slower than default
// in any regime (the engine's regime slack, daemon/engine.h); default if no
// other qualifies. Times are medians of per-launch medians, as Summarize's.
constexpr double kSingleChoiceSlack = 0.03;
struct SingleChoice {
  Collective collective = Collective::kAllgather;
  std::string layout;
  int64_t bytes = 0;
  Algorithm tuned = Algorithm::kDefault, best = Algorithm::kDefault;
  // Per regime the records hold, in kAllRegimes order: seconds.
  std::vector<double> t_default, t_tuned, t_best;
  // Each regime's own oracle (fastest there), its time, and its largest
  // time over default's in any regime (above 1 + slack: out of reach).
  std::vector<Algorithm> regime_oracle;
  std::vector<double> t_regime_oracle, regime_oracle_worst;
};
// The points of `grid` timed in every regime of the records (sync included).
std::vector<SingleChoice> BestSingleChoices(
    const std::vector<std::vector<PointRecord>>& launches, Grid grid,
    double slack = kSingleChoiceSlack);

// Every point's tuned/default and tuned/oracle in each regime of the
// records, side by side, with a verdict where the table changes the
// algorithm: "slower" where tuned's median is more than `margin` above
// default's in some regime. Nothing when the records hold sync alone. The
// datatype grid's points follow the contiguous ones.
// After the table, per grid, tuned against the best single choice
// (BestSingleChoices, `slack`) in each regime ("evaluate[one choice]:").
void PrintRegimeTable(const std::vector<std::vector<PointRecord>>& launches, double margin,
                      double alpha, double slack = kSingleChoiceSlack);

}  // namespace colltune::evaluation

#endif  // COLLTUNE_COMMON_EVALUATION_H_
