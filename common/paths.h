// Default locations shared by colltuned and its clients, so that a daemon
// started without arguments and a CLI run without --server find each other.
#ifndef COLLTUNE_COMMON_PATHS_H_
#define COLLTUNE_COMMON_PATHS_H_

#include <string>

namespace colltune {

// $COLLTUNE_STATE_DIR, else /var/lib/colltune for root, else
// $XDG_STATE_HOME/colltune, else ~/.local/state/colltune.
std::string DefaultStateDir();

// unix:<DefaultStateDir()>/colltuned.sock
std::string DefaultServerAddress();

}  // namespace colltune

#endif  // COLLTUNE_COMMON_PATHS_H_
