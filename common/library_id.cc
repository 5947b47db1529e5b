#include "common/library_id.h"

#include <cctype>

namespace colltune {
namespace {

std::string Printable(std::string_view s, size_t max) {
  std::string out;
  for (char c : s) {
    if (out.size() >= max) break;
    if (c == '\n' || c == '\r') break;
    out += (c >= 0x20 && c < 0x7f) ? c : ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The version token right after `pos`: skips spaces, tabs, ':' and a 'v'.
std::string VersionAfter(std::string_view text, size_t pos) {
  while (pos < text.size() &&
         (text[pos] == ' ' || text[pos] == '\t' || text[pos] == ':')) {
    ++pos;
  }
  if (pos < text.size() && (text[pos] == 'v' || text[pos] == 'V') &&
      pos + 1 < text.size() && isdigit(static_cast<unsigned char>(text[pos + 1]))) {
    ++pos;
  }
  size_t end = pos;
  while (end < text.size() &&
         (isalnum(static_cast<unsigned char>(text[end])) || text[end] == '.' ||
          text[end] == '-' || text[end] == '_')) {
    ++end;
  }
  return std::string(text.substr(pos, end - pos));
}

struct Known {
  std::string_view marker;  // text that identifies the library
  std::string_view name;
  std::string_view version_after;  // the version follows this text
};

constexpr Known kKnown[] = {
    {"Open MPI", "Open MPI", "Open MPI"},
    {"Intel(R) MPI Library", "Intel MPI", "Intel(R) MPI Library"},
    {"MVAPICH2", "MVAPICH2", "Version"},
    {"MVAPICH", "MVAPICH", "Version"},
    {"CRAY MPICH", "Cray MPICH", "CRAY MPICH version"},
    {"MPICH", "MPICH", "MPICH Version"},
};

}  // namespace

LibraryId ParseLibraryVersion(std::string_view text) {
  for (const Known& k : kKnown) {
    if (text.find(k.marker) == std::string_view::npos) continue;
    LibraryId id{std::string(k.name), ""};
    size_t at = text.find(k.version_after);
    if (at != std::string_view::npos) {
      id.version = VersionAfter(text, at + k.version_after.size());
    }
    return id;
  }
  return LibraryId{Printable(text, 64), ""};
}

}  // namespace colltune
