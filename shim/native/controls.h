// The library's control variables, as the shim finds, reads and writes them
// to force the library's own algorithms (native.h).
//
// MPI_T is the standard way and MPICH's. Under Open MPI the first
// MPI_T_init_thread registers the parameters of every component of every
// framework (about 0.2 s of MPI_Init, docs/results-2026-11-26.md), while
// the variables colltune needs, coll/tuned's, are registered already once
// MPI_Init has opened the coll framework. So under Open MPI the shim uses
// the MCA variable functions MPI_T itself calls (libopen-pal's
// mca_base_var_*, found at run time, nothing linked), and MPI_T where they
// are missing, or where COLLTUNE_NATIVE_CONTROLS=mpi_t asks for it.
#ifndef COLLTUNE_SHIM_NATIVE_CONTROLS_H_
#define COLLTUNE_SHIM_NATIVE_CONTROLS_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace colltune::shim {

class Controls {
 public:
  struct Var {
    int id = -1;  // for Read and Write; -1: not one integer (they cannot)
    bool is_int() const { return id >= 0; }
    // Open MPI: the enumeration's (name, value) pairs, in its order.
    std::vector<std::pair<std::string, int>> items;
    std::string description;  // MPICH lists its algorithms here
  };

  // Opens the controls of the running library (after MPI_Init); nullptr if
  // there is no way to reach them. `thread_level`: the job's, for MPI_T
  // (Open MPI's first MPI_T_init_thread sets the process's thread level).
  static std::unique_ptr<Controls> Open(int thread_level, std::vector<std::string>* notes);

  virtual ~Controls() = default;
  // "MPI_T" or "Open MPI's MCA variables", for notes and tests.
  virtual const char* way() const = 0;
  virtual std::optional<Var> Find(const std::string& name) = 0;
  virtual bool Read(int id, int* value) const = 0;
  virtual bool Write(int id, int value) const = 0;
  // A boolean (Open MPI's coll_tuned_use_dynamic_rules) and a string
  // variable; nullopt if there is no such variable or it cannot be read.
  virtual std::optional<bool> ReadBool(const std::string& name) = 0;
  virtual std::optional<std::string> ReadString(const std::string& name) = 0;
};

// Open MPI: whether coll/han is enabled, its priority above coll/tuned's
// (then it runs every collective it implements); nullopt where either
// priority cannot be read (not Open MPI). *why (if given) says both values.
std::optional<bool> HanOutranksTuned(Controls& controls, std::string* why = nullptr);

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_NATIVE_CONTROLS_H_
