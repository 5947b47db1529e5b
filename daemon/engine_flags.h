// The decision engine's command-line flags, shared by colltuned (which
// decides) and colltune-replay (which decides again offline): one name, one
// range and one meaning for each, so a replay's options are the daemon's.
#ifndef COLLTUNE_DAEMON_ENGINE_FLAGS_H_
#define COLLTUNE_DAEMON_ENGINE_FLAGS_H_

#include <CLI/CLI.hpp>

#include "daemon/engine.h"

namespace colltune::daemon {

// --margin, --native-margin, --tie-band, --alpha, bound to *o.
void AddDecisionFlags(CLI::App& app, EngineOptions* o);

}  // namespace colltune::daemon

#endif  // COLLTUNE_DAEMON_ENGINE_FLAGS_H_
