#include "cli/tuning_file/mpich_json.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace colltune::cli::tuning_file {
namespace {

// MPICH 4.0.2 prunes the tree per communicator with "comm_size<N" read as
// '<', but its per-call search reads it as '<=': a built-in branch moved
// below a message-size condition is searched per call, so its strict
// conditions are rewritten to the equivalent "comm_size<=N-1".
Json Normalized(const Json& tree) {
  if (!tree.is_object()) return tree;
  Json out = Json::object();
  constexpr std::string_view kLess = "comm_size<";
  for (const auto& [key, value] : tree.items()) {
    std::string k = key;
    if (k.compare(0, kLess.size(), kLess) == 0 && k.size() > kLess.size() &&
        k[kLess.size()] != '=') {
      k = "comm_size<=" + std::to_string(std::atol(k.c_str() + kLess.size()) - 1);
    }
    out[k] = Normalized(value);
  }
  return out;
}

// Two siblings: `cond` and its complement, which must come last.
Json Either(const std::string& cond, Json yes, const std::string& otherwise, Json no) {
  Json node = Json::object();
  node[cond] = std::move(yes);
  node[otherwise] = std::move(no);
  return node;
}

// The leaf of native algorithm `a`, behind the conditions that express its
// restrictions; where they fail, MPICH's own choice (`builtin`), as its
// algorithm variable would fall back.
Json Guarded(Collective c, Algorithm a, const Json& builtin) {
  Json node = Json{{"algorithm=" + MpichLeaf(c, a), Json::object()}};
  std::string_view restrictions;
  for (const MpichRestriction& r : kMpichRestrictions) {
    if (r.collective == c && r.name == InfoOf(a).library_name())
      restrictions = r.restrictions;
  }
  std::stringstream in{std::string(restrictions)};
  std::string r;
  while (in >> r) {
    if (r == "parent-comm") {
      node = Either("comm_hierarchy=parent", node, "comm_hierarchy=any", builtin);
    } else if (r == "power-of-two") {
      node = Either("comm_size=pow2", node, "comm_size=any", builtin);
    } else if (r == "commutative") {
      node = Either("is_commutative=yes", node, "is_commutative=no", builtin);
    } else if (r == "builtin-op") {
      node = Either("is_op_built_in=yes", node, "is_op_built_in=no", builtin);
    } else if (r == "size-ge-pof2") {  // count >= the largest power of 2 <= comm size
      node = Either("count<pow2", builtin, "count=any", node);
    } else if (r == "inplace") {
      node = Either("is_sendbuf_inplace=yes", node, "is_sendbuf_inplace=no", builtin);
    } else if (r == "noinplace") {
      node = Either("is_sendbuf_inplace=no", node, "is_sendbuf_inplace=yes", builtin);
    } else if (r == "block-regular") {  // every block the same count
      node = Either("is_block_regular=yes", node, "is_block_regular=no", builtin);
    } else if (r == "node-consecutive") {
      node = Either("is_node_consecutive=yes", node, "is_node_consecutive=no", builtin);
    }
  }
  return node;
}

Json MessageTree(Collective c, const Row& row, const Json& builtin, Notes* notes) {
  auto choice = [&](const Piece& p) {
    return p.native ? Guarded(c, *p.native, builtin) : builtin;
  };
  if (row.pieces.size() == 1) return choice(row.pieces[0]);
  const std::string condition(kFileNames[IndexOf(c)].mpich_condition);
  Json chain = Json::object();
  for (size_t i = 0; i < row.pieces.size(); ++i) {
    const Piece& p = row.pieces[i];
    // MPICH reads thresholds with atoi: the range reaching INT_MAX takes
    // every size above as well.
    const bool last =
        i + 1 == row.pieces.size() || p.max >= static_cast<uint64_t>(INT_MAX);
    if (last) {
      for (size_t j = i + 1; j < row.pieces.size(); ++j) {
        if (row.pieces[j].native != p.native) {
          notes->Add(
              std::string(InfoOf(c).name) +
              ": choices above 2 GiB cannot be told apart in mpich-json; they follow "
              "the range below");
        }
      }
      chain[condition + "=any"] = choice(p);
      break;
    }
    chain[condition + "<=" + std::to_string(p.max)] = choice(p);
  }
  return chain;
}

// The communicators MPICH makes inside its own algorithms (the node and
// node-roots communicators of smp algorithms) keep MPICH's choices: the
// shim, which sees only the application's calls, never tunes them either.
Json IntraTree(Collective c, const std::vector<Row>& rows, const Json& builtin,
               Notes* notes) {
  Json chain = Json::object();
  if (rows.size() == 1) {
    chain = MessageTree(c, rows[0], builtin, notes);
  } else {
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string key = i + 1 == rows.size()
                                  ? std::string("comm_size=any")
                                  : "comm_size<=" + std::to_string(rows[i].hi);
      chain[key] = MessageTree(c, rows[i], builtin, notes);
    }
  }
  Json tree = Json::object();
  tree["comm_hierarchy=node"] = builtin;
  tree["comm_hierarchy=node_roots"] = builtin;
  tree["comm_hierarchy=any"] = std::move(chain);
  return tree;
}

// Whether `tree` is an MPIR-level selection tree: MPIR_ algorithms only (the
// library also holds the ch4 and POSIX trees, whose leaves are MPIDI_).
bool OnlyMpirLeaves(const Json& tree) {
  if (!tree.is_object()) return false;
  for (const auto& [key, value] : tree.items()) {
    if (key.rfind("algorithm=", 0) == 0 || key.rfind("composition=", 0) == 0) {
      if (key.rfind("algorithm=MPIR_", 0) != 0) return false;
    } else if (!OnlyMpirLeaves(value)) {
      return false;
    }
  }
  return true;
}

// MPICH compiles its built-in tree into the library as one JSON string
// (csel_json_autogen.c, not an exported symbol): found by its shape.
std::optional<Json> BuiltinTree(const std::string& library) {
  constexpr std::string_view kStart = "{\"collective=";
  size_t pos = 0;
  while ((pos = library.find(kStart, pos)) != std::string::npos) {
    const size_t end = library.find('\0', pos);
    if (end == std::string::npos) break;
    if (pos == 0 || library[pos - 1] == '\0') {
      Json tree =
          Json::parse(library.begin() + pos, library.begin() + end, nullptr, false);
      if (!tree.is_discarded() && tree.contains("collective=allreduce") &&
          OnlyMpirLeaves(tree)) {
        return tree;
      }
    }
    pos = end;
  }
  return std::nullopt;
}

std::string FindMpichLibrary() {
  std::vector<std::string> dirs;
  if (const char* v = getenv("LD_LIBRARY_PATH"); v != nullptr) {
    std::stringstream in(v);
    std::string d;
    while (std::getline(in, d, ':')) {
      if (!d.empty()) dirs.push_back(d);
    }
  }
  dirs.push_back("/usr/local/lib");
#if defined(__x86_64__)
  dirs.push_back("/usr/lib/x86_64-linux-gnu");
#elif defined(__aarch64__)
  dirs.push_back("/usr/lib/aarch64-linux-gnu");
#endif
  dirs.push_back("/usr/lib64");
  dirs.push_back("/usr/lib");
  for (const std::string& d : dirs) {
    for (const char* name : {"libmpich.so.12", "libmpich.so"}) {
      const std::string path = d + "/" + name;
      if (access(path.c_str(), R_OK) == 0) return path;
    }
  }
  return "";
}

}  // namespace

absl::StatusOr<std::string> MpichJson(
    Json tree, const std::vector<std::pair<Collective, std::vector<Row>>>& colls,
    Notes* notes) {
  for (const auto& [c, rows] : colls) {
    const std::string key = "collective=" + std::string(InfoOf(c).name);
    if (!tree.contains(key) || !tree[key].is_object()) {
      return absl::FailedPreconditionError(
          "the MPICH selection tree to start from has no '" + key +
          "': MPICH's own choices for it cannot be kept");
    }
    Json& entry = tree[key];
    if (entry.contains("comm_type=intra")) {
      entry["comm_type=intra"] =
          IntraTree(c, rows, Normalized(entry["comm_type=intra"]), notes);
    } else {
      // A collective decided the same way for both kinds (gatherv's
      // allcomm algorithms): intra-communicators get the new branch.
      const Json both = entry;
      entry = Json{{"comm_type=intra", IntraTree(c, rows, Normalized(both), notes)},
                   {"comm_type=inter", both}};
    }
  }
  return tree.dump(2) + "\n";
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read " + path);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (in.bad()) return absl::DataLossError("error reading " + path);
  return bytes;
}

// The tree to start from, and the library's bytes to check names against.
absl::StatusOr<Json> MpichBase(const std::string& library_path,
                               const std::string& base_file, std::string* library_bytes,
                               Notes* notes) {
  const std::string library = library_path.empty() ? FindMpichLibrary() : library_path;
  if (!library.empty()) {
    absl::StatusOr<std::string> bytes = ReadFile(library);
    if (!bytes.ok()) return bytes.status();
    *library_bytes = std::move(*bytes);
  }
  if (!base_file.empty()) {
    absl::StatusOr<std::string> text = ReadFile(base_file);
    if (!text.ok()) return text.status();
    Json tree = Json::parse(*text, nullptr, false);
    if (tree.is_discarded() || !tree.is_object()) {
      return absl::InvalidArgumentError(base_file + " is not a JSON object");
    }
    if (library.empty()) {
      notes->Add(
          "no MPICH library found: algorithm names not checked against it "
          "(--mpich-library PATH)");
    }
    return tree;
  }
  if (library.empty()) {
    return absl::NotFoundError(
        "cannot find MPICH's library (libmpich.so.12) to read its built-in selection "
        "tree "
        "from: pass --mpich-library PATH, or --mpich-base FILE (the tree to start from, "
        "e.g. maint/tuning/coll/mpir/generic.json of the MPICH source)");
  }
  std::optional<Json> tree = BuiltinTree(*library_bytes);
  if (!tree) {
    return absl::NotFoundError(
        "no built-in MPIR selection tree found in " + library +
        ": pass --mpich-base FILE (the tree to start from, e.g. "
        "maint/tuning/coll/mpir/generic.json of the MPICH source)");
  }
  return *tree;
}

}  // namespace colltune::cli::tuning_file
