#include "daemon/engine_flags.h"

namespace colltune::daemon {

void AddDecisionFlags(CLI::App& app, EngineOptions* o) {
  app.add_option("--margin", o->margin,
                 "A mock-up replaces default only if at least this much faster")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  app.add_option("--native-margin", o->native_margin,
                 "A library's own algorithm replaces default (or another algorithm) "
                 "only if at least this much faster")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  app.add_option("--tie-band", o->tie_band,
                 "Candidates whose medians are within this fraction of the fastest's "
                 "are ranked by their upper quartiles (0: off)")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  app.add_option("--regime-slack", o->regime_slack,
                 "Where a point was timed in several regimes (synchronized, back to "
                 "back, after uneven work), a candidate replaces default only if it "
                 "is at most this much slower than default in each regime it does "
                 "not win")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  app.add_option("--min-regime-launches", o->min_regime_launches,
                 "A candidate replaces default only if timed in at least this many "
                 "launches in every regime (fewer where default has fewer; 0: off)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--min-held-out-launches", o->min_held_out_launches,
                 "Held-out validation launches (colltune campaign --validate) a point "
                 "needs before they may take its choice back to default (0: off)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--held-out-slack", o->held_out_slack,
                 "Held-out launches take a choice back where, in some regime, its "
                 "median per-launch time over default's is more than this above 1")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  app.add_option("--switch-margin", o->switch_margin,
                 "A range switches to another algorithm back to back or after uneven "
                 "work where it is faster there than the range's choice by this "
                 "fraction, across launches (0: no regime switches)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option_function<double>(
         "--min-saving-ns", [o](double ns) { o->min_saving = ns * 1e-9; },
         "A candidate replaces default, or becomes a regime switch, only if it "
         "saves at least this many nanoseconds a call there, besides the margin "
         "(jobs pay the shim's dispatch, which campaigns do not time; 0: off)")
      ->check(CLI::Range(0.0, 1e6))
      ->default_str("50");
  app.add_option("--alpha", o->alpha,
                 "Significance level of the rank tests behind decisions")
      ->check(CLI::Range(0.0001, 0.5))
      ->capture_default_str();
}

}  // namespace colltune::daemon
