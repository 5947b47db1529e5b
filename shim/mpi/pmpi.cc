#include "shim/mpi/pmpi.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "shim/mpi/mpi.h"

namespace colltune::shim {

int NoCopy(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int NoTypeCopy(MPI_Datatype, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int NoTypeDelete(MPI_Datatype, int, void*, void*) { return MPI_SUCCESS; }

namespace pmpi {
namespace {

// One line on stderr, once per missing function.
void Missing(const char* name, std::atomic<bool>* said) {
  if (said->exchange(true)) return;
  std::string line = "colltune: ";
  line += name;
  line += " is not in any loaded MPI library; the call fails with MPI_ERR_OTHER\n";
  ssize_t ignored = write(2, line.data(), line.size());
  (void)ignored;
}

// What a pointer holds until the lookup has put the library's function
// there: a function with the same signature that looks the entry points up
// and calls the real one, or fails the call if there is none.
template <class F>
struct Stub;
template <class R, class... A>
struct Stub<R (*)(A...)> {
  template <R (**Slot)(A...), const char* Name>
  static R Call(A... args) {
    if (Resolve() && *Slot != &Call<Slot, Name>) return (*Slot)(args...);
    static std::atomic<bool> said{false};
    Missing(Name, &said);
    if constexpr (std::is_floating_point_v<R> || std::is_pointer_v<R>) {
      return R{};  // MPI_Wtime; an f2c conversion (no handle)
    } else {
      return MPI_ERR_OTHER;
    }
  }
};

}  // namespace

// (The types come from the declarations in mpi.h: a PMPI_ name written here
// would be turned into the pointer by mpi.h's macros.)
#define COLLTUNE_PMPI_DEFINE(name)                                  \
  namespace {                                                       \
  constexpr char kName_##name[] = "PMPI_" #name;                    \
  }                                                                 \
  decltype(name) name = &Stub<decltype(name)>::Call<&name, kName_##name>;
COLLTUNE_PMPI_FUNCTIONS(COLLTUNE_PMPI_DEFINE)
#undef COLLTUNE_PMPI_DEFINE
#define COLLTUNE_PMPI_DEFINE_PERSISTENT(name)                       \
  namespace {                                                       \
  constexpr char kName_##name[] = COLLTUNE_PERSISTENT_PMPI_PREFIX #name; \
  }                                                                 \
  decltype(name) name = &Stub<decltype(name)>::Call<&name, kName_##name>;
COLLTUNE_PERSISTENT_PMPI_FUNCTIONS(COLLTUNE_PMPI_DEFINE_PERSISTENT)
#undef COLLTUNE_PMPI_DEFINE_PERSISTENT

FortranSentinels fortran_sentinels;

}  // namespace pmpi

#if defined(OPEN_MPI)
namespace ompi {
#define COLLTUNE_OMPI_DEFINE(name) void* name = nullptr;
COLLTUNE_OMPI_OBJECTS(COLLTUNE_OMPI_DEFINE)
#undef COLLTUNE_OMPI_DEFINE
}  // namespace ompi
#endif

namespace pmpi {
namespace {

// The names of the loaded objects, collected first: dlopen must not run
// inside dl_iterate_phdr's callback, which holds the loader's lock.
int CollectName(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
    static_cast<std::vector<std::string>*>(data)->emplace_back(info->dlpi_name);
  }
  return 0;
}

// A handle through which PMPI_Init is found, or null. RTLD_NEXT sees MPI when
// it is in the global scope (linked, or dlopen'ed with RTLD_GLOBAL); an
// object loaded with RTLD_LOCAL is found by opening each loaded object again
// (RTLD_NOLOAD: nothing new is loaded) and searching it with its
// dependencies. The handle stays open: the library must not go away.
void* FindProvider(bool search_all) {
  if (dlsym(RTLD_NEXT, "PMPI_Init") != nullptr) return RTLD_NEXT;
  if (!search_all) return nullptr;
  std::vector<std::string> names;
  dl_iterate_phdr(CollectName, &names);
  for (const std::string& name : names) {
    void* handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    if (dlsym(handle, "PMPI_Init") != nullptr) return handle;
    dlclose(handle);
  }
  return nullptr;
}

// Where the entry points were found (RTLD_NEXT or a library's handle).
void* g_provider = nullptr;

template <class F>
void Bind(void* handle, const char* name, F* slot) {
  if (void* f = dlsym(handle, name)) *slot = reinterpret_cast<F>(f);
}

bool Lookup(bool search_all) {
  void* handle = FindProvider(search_all);
  if (handle == nullptr) return false;
#define COLLTUNE_PMPI_BIND(name) Bind(handle, "PMPI_" #name, &name);
  COLLTUNE_PMPI_FUNCTIONS(COLLTUNE_PMPI_BIND)
#undef COLLTUNE_PMPI_BIND
#define COLLTUNE_PMPI_BIND_PERSISTENT(name) \
  Bind(handle, COLLTUNE_PERSISTENT_PMPI_PREFIX #name, &name);
  COLLTUNE_PERSISTENT_PMPI_FUNCTIONS(COLLTUNE_PMPI_BIND_PERSISTENT)
#undef COLLTUNE_PMPI_BIND_PERSISTENT
#if defined(OPEN_MPI)
  // Handle objects are data: a program that names MPI_COMM_WORLD holds a
  // copy of the object (a copy relocation) that libmpi itself then uses, so
  // they are looked up in the global scope, where that copy comes first.
  // MPI opened with RTLD_LOCAL has no such copies.
  void* objects = handle == RTLD_NEXT ? RTLD_DEFAULT : handle;
  // A handle object this version lacks stands for the null handle of its
  // kind, which the shim's code already skips.
  void* null_type = dlsym(objects, "ompi_mpi_datatype_null");
  void* null_op = dlsym(objects, "ompi_mpi_op_null");
#define COLLTUNE_OMPI_BIND(name)                                          \
  ompi::name = dlsym(objects, #name);                                    \
  if (ompi::name == nullptr) {                                            \
    ompi::name = std::strncmp(#name, "ompi_mpi_op_", 12) == 0 ? null_op   \
                                                              : null_type; \
  }
  COLLTUNE_OMPI_OBJECTS(COLLTUNE_OMPI_BIND)
#undef COLLTUNE_OMPI_BIND
  const char* const in_place[] = {"mpi_fortran_in_place_", "mpi_fortran_in_place",
                                  "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE"};
  const char* const bottom[] = {"mpi_fortran_bottom_", "mpi_fortran_bottom",
                                "mpi_fortran_bottom__", "MPI_FORTRAN_BOTTOM"};
  FortranSentinels& f = fortran_sentinels;
  for (int i = 0; i < 4; ++i) {
    f.in_place[i] = dlsym(objects, in_place[i]);
    f.bottom[i] = dlsym(objects, bottom[i]);
    for (const void* p : {f.in_place[i], f.bottom[i]}) {
      if (p == nullptr) continue;
      if (f.lowest == nullptr || std::less<const void*>()(p, f.lowest)) f.lowest = p;
      if (f.highest == nullptr || std::less<const void*>()(f.highest, p)) f.highest = p;
    }
  }
#endif
  g_provider = handle;
  return true;
}

std::atomic<bool> g_resolved{false};
std::mutex g_lookup;

bool ResolveWith(bool search_all) {
  if (g_resolved.load(std::memory_order_acquire)) return true;
  std::lock_guard<std::mutex> hold(g_lookup);
  if (!g_resolved.load(std::memory_order_relaxed) && Lookup(search_all)) {
    g_resolved.store(true, std::memory_order_release);
  }
  return g_resolved.load(std::memory_order_relaxed);
}

// A program linked with MPI has it loaded before any constructor runs; only
// the cheap RTLD_NEXT query here, since the shim is also preloaded into
// every process of a job script.
__attribute__((constructor)) void ResolveEarly() { ResolveWith(false); }

}  // namespace

bool Resolve() { return ResolveWith(true); }

void* Symbol(const char* name) {
  if (!Resolve()) return nullptr;
  return dlsym(g_provider, name);
}

}  // namespace pmpi
}  // namespace colltune::shim
