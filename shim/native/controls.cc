#include "shim/native/controls.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#include "shim/mpi/mpi.h"

namespace colltune::shim {
namespace {

constexpr int kMaxText = 4096;

class MpiT final : public Controls {
 public:
  static std::unique_ptr<Controls> Open(int thread_level, std::vector<std::string>* notes) {
    int provided = 0;
    // The job's own level: Open MPI 4.1's first MPI_T_init_thread sets the
    // process's MPI thread level to the one asked for (ompi_mpi_thread_level),
    // so asking for less would turn off its locking under the job's threads.
    if (PMPI_T_init_thread(thread_level, &provided) != MPI_SUCCESS) {
      notes->push_back("native algorithms: MPI_T is not available");
      return nullptr;
    }
    return std::unique_ptr<Controls>(new MpiT);
  }

  ~MpiT() override {
    for (MPI_T_cvar_handle& h : handles_) PMPI_T_cvar_handle_free(&h);
    PMPI_T_finalize();
  }

  const char* way() const override { return "MPI_T"; }

  std::optional<Var> Find(const std::string& name) override {
    int index = -1;
    if (PMPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS) return std::nullopt;
    char cname[256];
    std::vector<char> desc(kMaxText);
    int name_len = sizeof cname, desc_len = kMaxText, verbosity = 0, bind = 0, scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    if (PMPI_T_cvar_get_info(index, cname, &name_len, &verbosity, &type, &enumtype,
                             desc.data(), &desc_len, &bind, &scope) != MPI_SUCCESS) {
      return std::nullopt;
    }
    Var v;
    v.description.assign(desc.data(), strnlen(desc.data(), kMaxText));
    int items = 0;
    char ename[256];
    int ename_len = sizeof ename;
    if (enumtype != MPI_T_ENUM_NULL &&
        PMPI_T_enum_get_info(enumtype, &items, ename, &ename_len) == MPI_SUCCESS) {
      for (int i = 0; i < items; ++i) {
        int value = 0;
        char iname[256];
        int iname_len = sizeof iname;
        if (PMPI_T_enum_get_item(enumtype, i, &value, iname, &iname_len) == MPI_SUCCESS) {
          v.items.emplace_back(iname, value);
        }
      }
    }
    MPI_T_cvar_handle h;
    int count = 0;
    if (type == MPI_INT && PMPI_T_cvar_handle_alloc(index, nullptr, &h, &count) == MPI_SUCCESS) {
      if (count == 1) {
        v.id = static_cast<int>(handles_.size());
        handles_.push_back(h);
      } else {
        PMPI_T_cvar_handle_free(&h);
      }
    }
    return v;
  }

  bool Read(int id, int* value) const override {
    return PMPI_T_cvar_read(handles_[static_cast<size_t>(id)], value) == MPI_SUCCESS;
  }

  bool Write(int id, int value) const override {
    return PMPI_T_cvar_write(handles_[static_cast<size_t>(id)], &value) == MPI_SUCCESS;
  }

  std::optional<bool> ReadBool(const std::string& name) override {
    int on = 0;  // the library fills one byte of it
    if (!ReadOnce(name, &on, 1, 1)) return std::nullopt;
    return on != 0;
  }

  std::optional<std::string> ReadString(const std::string& name) override {
    std::vector<char> value(kMaxText + 1, 0);
    if (!ReadOnce(name, value.data(), 0, kMaxText)) return std::nullopt;
    return std::string(value.data());
  }

 private:
  MpiT() = default;

  // Reads variable `name` into `buf` through a handle of its own, if it
  // holds `least` to `most` elements.
  static bool ReadOnce(const std::string& name, void* buf, int least, int most) {
    int index = -1, count = 0;
    MPI_T_cvar_handle h;
    if (PMPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS ||
        PMPI_T_cvar_handle_alloc(index, nullptr, &h, &count) != MPI_SUCCESS) {
      return false;
    }
    const bool ok = count >= least && count <= most && PMPI_T_cvar_read(h, buf) == MPI_SUCCESS;
    PMPI_T_cvar_handle_free(&h);
    return ok;
  }

  std::vector<MPI_T_cvar_handle> handles_;
};

#if defined(OPEN_MPI)
// libopen-pal's MCA variable functions (opal/mca/base/mca_base_var.h, the
// same in Open MPI 4.x and 5.x), which MPI_T's cvar functions call.
using FindByNameFn = int (*)(const char* full_name, int* vari);
using GetValueFn = int (*)(int vari, const void* value, int* source, const char** file);
using SetValueFn = int (*)(int vari, const void* value, size_t size, int source,
                           const char* file);
using DumpFn = int (*)(int vari, char*** out, int output_type);
constexpr int kSourceSet = 4;     // MCA_BASE_VAR_SOURCE_SET: what MPI_T writes as
constexpr int kDumpParsable = 1;  // MCA_BASE_VAR_DUMP_PARSABLE: ompi_info --parsable

class OpenMpiVars final : public Controls {
 public:
  // nullptr if this process's Open MPI does not offer the functions.
  static std::unique_ptr<Controls> Open() {
    auto find = reinterpret_cast<FindByNameFn>(dlsym(RTLD_DEFAULT, "mca_base_var_find_by_name"));
    auto get = reinterpret_cast<GetValueFn>(dlsym(RTLD_DEFAULT, "mca_base_var_get_value"));
    auto set = reinterpret_cast<SetValueFn>(dlsym(RTLD_DEFAULT, "mca_base_var_set_value"));
    auto dump = reinterpret_cast<DumpFn>(dlsym(RTLD_DEFAULT, "mca_base_var_dump"));
    if (!find || !get || !set || !dump) return nullptr;
    return std::unique_ptr<Controls>(new OpenMpiVars(find, get, set, dump));
  }

  const char* way() const override { return "Open MPI's MCA variables"; }

  std::optional<Var> Find(const std::string& name) override {
    std::optional<Described> d = Describe(name);
    if (!d) return std::nullopt;
    Var v;
    v.items = std::move(d->items);
    v.description = std::move(d->help);
    // Only what MPI_T would offer as one integer (coll/tuned's algorithms
    // and segment sizes are "int"; a bool's storage is one byte).
    if (d->type == "int") {
      v.id = d->index;
    }
    return v;
  }

  bool Read(int id, int* value) const override {
    const int* storage = nullptr;
    if (get_(id, &storage, nullptr, nullptr) != 0 || storage == nullptr) return false;
    *value = *storage;
    return true;
  }

  bool Write(int id, int value) const override {
    // Refused (not 0) where the variable is not settable or the value is not
    // in its enumeration, as an MPI_T write is.
    return set_(id, &value, sizeof value, kSourceSet, nullptr) == 0;
  }

  std::optional<bool> ReadBool(const std::string& name) override {
    std::optional<Described> d = Describe(name);
    if (!d || d->type != "bool") return std::nullopt;
    if (d->value == "true" || d->value == "1") return true;
    if (d->value == "false" || d->value == "0") return false;
    return std::nullopt;
  }

  std::optional<std::string> ReadString(const std::string& name) override {
    std::optional<Described> d = Describe(name);
    if (!d || d->type != "string") return std::nullopt;
    return d->value;
  }

 private:
  OpenMpiVars(FindByNameFn find, GetValueFn get, SetValueFn set, DumpFn dump)
      : find_(find), get_(get), set_(set), dump_(dump) {}

  // What `ompi_info --parsable` says of one variable: lines
  // "mca:<framework>:<component>:param:<name>:<key>:<rest>".
  struct Described {
    int index = -1;
    std::string type, value, help;
    std::vector<std::pair<std::string, int>> items;
  };

  std::optional<Described> Describe(const std::string& name) const {
    Described d;
    if (find_(name.c_str(), &d.index) != 0 || d.index < 0) return std::nullopt;
    char** lines = nullptr;
    if (dump_(d.index, &lines, kDumpParsable) != 0 || lines == nullptr) return std::nullopt;
    const std::string marker = ":param:" + name + ":";
    bool typed = false;
    for (char** l = lines; *l != nullptr; ++l) {
      const std::string line(*l);
      free(*l);
      const size_t at = line.find(marker);
      if (at == std::string::npos) continue;
      const std::string rest = line.substr(at + marker.size());
      const size_t colon = rest.find(':');
      const std::string key = rest.substr(0, colon);
      const std::string text = colon == std::string::npos ? "" : rest.substr(colon + 1);
      if (key == "type") {
        d.type = text;
        typed = true;
      } else if (key == "value") {
        d.value = text;
      } else if (key == "help") {
        d.help = text;
      } else if (key == "enumerator" && text.rfind("value:", 0) == 0) {
        // "value:<number>:<name>"
        const std::string item = text.substr(6);
        const size_t sep = item.find(':');
        if (sep == std::string::npos) continue;
        char* end = nullptr;
        const long number = strtol(item.c_str(), &end, 10);
        if (end != item.c_str() + sep) continue;
        d.items.emplace_back(item.substr(sep + 1), static_cast<int>(number));
      }
    }
    free(lines);
    if (!typed) return std::nullopt;  // not the format this was written for
    return d;
  }

  FindByNameFn find_;
  GetValueFn get_;
  SetValueFn set_;
  DumpFn dump_;
};
#endif

}  // namespace

std::unique_ptr<Controls> Controls::Open(int thread_level, std::vector<std::string>* notes) {
  const char* want = getenv("COLLTUNE_NATIVE_CONTROLS");
  const bool mpi_t_only = want != nullptr && strcmp(want, "mpi_t") == 0;
  if (want != nullptr && *want != '\0' && !mpi_t_only && strcmp(want, "auto") != 0) {
    notes->push_back(std::string("COLLTUNE_NATIVE_CONTROLS='") + want +
                     "' is neither 'auto' nor 'mpi_t'; using auto");
  }
#if defined(OPEN_MPI)
  if (!mpi_t_only) {
    if (std::unique_ptr<Controls> vars = OpenMpiVars::Open()) return vars;
  }
#endif
  return MpiT::Open(thread_level, notes);
}

std::optional<bool> HanOutranksTuned(Controls& controls, std::string* why) {
  const std::optional<Controls::Var> han = controls.Find("coll_han_priority");
  const std::optional<Controls::Var> tuned = controls.Find("coll_tuned_priority");
  int han_priority = 0, tuned_priority = 0;
  if (!han || !tuned || !controls.Read(han->id, &han_priority) ||
      !controls.Read(tuned->id, &tuned_priority)) {
    return std::nullopt;
  }
  if (why != nullptr) {
    *why = "coll_han_priority is " + std::to_string(han_priority) + ", coll_tuned_priority " +
           std::to_string(tuned_priority);
  }
  return han_priority > tuned_priority;
}

}  // namespace colltune::shim
