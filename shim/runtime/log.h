// The shim's only output: lines on stderr, prefixed "colltune: ". Never
// stdout, which belongs to the application.
#ifndef COLLTUNE_SHIM_RUNTIME_LOG_H_
#define COLLTUNE_SHIM_RUNTIME_LOG_H_

namespace colltune::shim {

// COLLTUNE_VERBOSE of this process: 0 quiet, 1 one line per rank-0 event, 2
// more. Read once at MPI_Init.
int VerboseLevel();
void SetVerboseLevel(int level);

// Errors in what the user gave us (malformed table, unknown names): always
// printed.
void LogError(const char* format, ...) __attribute__((format(printf, 1, 2)));
// Printed when COLLTUNE_VERBOSE >= level.
void LogInfo(int level, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_LOG_H_
