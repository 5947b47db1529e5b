// Files the shim reads and writes: the table cache (the last good table the
// daemon gave for a context, used when the daemon cannot answer) and the file
// named by COLLTUNE_TABLE.
#ifndef COLLTUNE_SHIM_RUNTIME_CACHE_H_
#define COLLTUNE_SHIM_RUNTIME_CACHE_H_

#include <cstddef>
#include <string>

namespace colltune::shim {

// <dir>/table-<16 hex digits of a hash of key>.txt
std::string CachePath(const std::string& dir, const std::string& key);

// Reads at most `max_bytes`; a longer file is an error.
bool ReadFileLimited(const std::string& path, size_t max_bytes,
                     std::string* contents, std::string* error);

// Writes through a temporary file and rename(), creating `path`'s directory
// (and its parents) if needed, so readers never see half a table.
bool WriteFileAtomic(const std::string& path, const std::string& contents,
                     std::string* error);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_RUNTIME_CACHE_H_
