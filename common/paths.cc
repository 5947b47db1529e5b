#include "common/paths.h"

#include <unistd.h>

#include <cstdlib>

namespace colltune {

std::string DefaultStateDir() {
  if (const char* v = getenv("COLLTUNE_STATE_DIR"); v && *v) return v;
  if (geteuid() == 0) return "/var/lib/colltune";
  if (const char* v = getenv("XDG_STATE_HOME"); v && *v) {
    return std::string(v) + "/colltune";
  }
  if (const char* v = getenv("HOME"); v && *v) {
    return std::string(v) + "/.local/state/colltune";
  }
  return ".";
}

std::string DefaultServerAddress() {
  return "unix:" + DefaultStateDir() + "/colltuned.sock";
}

}  // namespace colltune
