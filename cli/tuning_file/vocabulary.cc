#include "cli/tuning_file/vocabulary.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace colltune::cli::tuning_file {
namespace {

std::string Output(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0 && out.size() < (16u << 20)) out.append(buf, n);
  pclose(p);
  return out;
}

}  // namespace

std::string OmpiFanoutSegsize(std::optional<Algorithm> a) {
  return "4 " + std::to_string(a ? InfoOf(*a).segment : 0);
}

// The space-separated words of `list`.
std::vector<std::string_view> Words(std::string_view list) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < list.size()) {
    size_t end = list.find(' ', pos);
    if (end == std::string_view::npos) end = list.size();
    out.push_back(list.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

bool HasWord(std::string_view list, std::string_view word, int* position) {
  const std::vector<std::string_view> words = Words(list);
  const auto it = std::find(words.begin(), words.end(), word);
  if (it == words.end()) return false;
  if (position) *position = static_cast<int>(it - words.begin()) + 1;
  return true;
}

// Open MPI's algorithm number of native algorithm `a`, 0 if it has none.
int OmpiNumber(Collective c, Algorithm a) {
  int n = 0;
  return HasWord(kFileNames[IndexOf(c)].ompi_algorithms, InfoOf(a).library_name(), &n)
             ? n
             : 0;
}

InstalledLibrary AskOpenMpi() {
  InstalledLibrary lib;
  std::istringstream version(Output("ompi_info --parsable"));
  for (std::string line; std::getline(version, line);) {
    if (line.rfind("ompi:version:full:", 0) == 0) lib.version = line.substr(18);
  }
  // mca:coll:tuned:param:coll_tuned_<coll>_algorithm:enumerator:value:<n>:<name>
  std::istringstream params(Output("ompi_info --parsable --param coll tuned --level 9"));
  const std::string prefix = "mca:coll:tuned:param:coll_tuned_";
  for (std::string line; std::getline(params, line);) {
    const size_t at = line.find("_algorithm:enumerator:value:");
    if (line.rfind(prefix, 0) != 0 || at == std::string::npos) continue;
    const std::optional<Collective> c =
        ParseCollective(line.substr(prefix.size(), at - prefix.size()));
    const std::string rest = line.substr(at + 28);
    const size_t colon = rest.find(':');
    if (!c || colon == std::string::npos) continue;
    lib.values[{IndexOf(*c), rest.substr(colon + 1)}] = atoi(rest.substr(0, colon).c_str());
    lib.listed = true;
  }
  return lib;
}

InstalledLibrary AskMpich() {
  InstalledLibrary lib;
  std::istringstream out(Output("mpichversion"));
  for (std::string line; std::getline(out, line);) {
    if (line.rfind("MPICH Version:", 0) != 0) continue;
    const size_t v = line.find_first_not_of(" \t", 14);
    if (v != std::string::npos) lib.version = line.substr(v);
  }
  return lib;
}

// Where colltune's numbering of Open MPI's algorithms (kFileNames, made for
// 4.1.4) differs from the installed library's, one line each; empty if it
// agrees for every collective.
std::vector<std::string> NumberingMismatches(const InstalledLibrary& lib) {
  std::vector<std::string> out;
  for (const FileNames& f : kFileNames) {
    const std::vector<std::string_view> words = Words(f.ompi_algorithms);
    for (size_t i = 0; i < words.size(); ++i) {
      const std::string name(words[i]);
      const int n = static_cast<int>(i) + 1;
      const auto it = lib.values.find({IndexOf(f.collective), name});
      if (it == lib.values.end()) {
        out.push_back(std::string(InfoOf(f.collective).name) + " " + name +
                      ": not in the installed library's enumeration");
      } else if (it->second != n) {
        out.push_back(std::string(InfoOf(f.collective).name) + " " + name + ": number " +
                      std::to_string(it->second) + " here, " + std::to_string(n) +
                      " in colltune's numbering");
      }
    }
  }
  return out;
}

std::string MpichLeaf(Collective c, Algorithm a) {
  const FileNames& f = kFileNames[IndexOf(c)];
  const std::string_view name = InfoOf(a).library_name();
  return "MPIR_" + std::string(f.mpich_coll) +
         (HasWord(f.mpich_allcomm, name) ? "_allcomm_" : "_intra_") + std::string(name);
}

}  // namespace colltune::cli::tuning_file
