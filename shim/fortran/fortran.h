// What the Fortran entry points share: argument conversion and the library's
// Fortran sentinels.
//
// Fortran passes every argument by address; handles are INTEGERs (mpi_f08's
// handle types are a one-integer derived type, the same in memory), converted
// with the library's MPI_*_f2c. Fortran's MPI_IN_PLACE and MPI_BOTTOM are not
// C's: they are addresses of variables of the library (Open MPI: the common
// blocks mpi_fortran_in_place_ and mpi_fortran_bottom_, which the program's
// own copies shadow), so a buffer at one of those addresses becomes C's
// sentinel. IERROR receives the C return code (the same error classes in both
// languages); mpi_f08 makes it optional, hence NULL when omitted.
#ifndef COLLTUNE_SHIM_FORTRAN_FORTRAN_H_
#define COLLTUNE_SHIM_FORTRAN_FORTRAN_H_

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <new>
#include <tuple>

#include "shim/mpi/mpi.h"
#include "shim/mpi/pmpi.h"

namespace colltune::shim::fortran {

// A buffer argument where MPI forbids MPI_IN_PLACE: the library's own
// binding passes Fortran's sentinel on as an ordinary address, and so does
// the shim (a misuse then fails, or not, exactly as without the shim).
// True unless `buf` may be one of the sentinels (a range test).
inline bool NoSentinel(const void* buf) {
  const pmpi::FortranSentinels& f = pmpi::fortran_sentinels;
  return f.lowest == nullptr || std::less<const void*>()(buf, f.lowest) ||
         std::less<const void*>()(f.highest, buf);
}

inline void* BufferNotInPlace(void* buf) {
  if (NoSentinel(buf)) return buf;
  for (const void* s : pmpi::fortran_sentinels.bottom) {
    if (s != nullptr && buf == s) return MPI_BOTTOM;
  }
  return buf;
}

inline void* Buffer(void* buf) {
  if (NoSentinel(buf)) return buf;
  for (const void* s : pmpi::fortran_sentinels.in_place) {
    if (s != nullptr && buf == s) return MPI_IN_PLACE;
  }
  for (const void* s : pmpi::fortran_sentinels.bottom) {
    if (s != nullptr && buf == s) return MPI_BOTTOM;
  }
  return buf;
}

// MPI_Fint and int are the same type in both libraries the shim is built
// for (4 bytes), so INTEGER arrays are int arrays.
static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is not an int");
inline const int* Ints(const MPI_Fint* a) { return reinterpret_cast<const int*>(a); }

#if defined(OPEN_MPI)
inline MPI_Datatype TypeOf(MPI_Fint f) { return PMPI_Type_f2c(f); }
inline MPI_Op OpOf(MPI_Fint f) { return PMPI_Op_f2c(f); }
inline MPI_Comm CommOf(MPI_Fint f) { return PMPI_Comm_f2c(f); }
inline MPI_Request RequestOf(MPI_Fint f) { return PMPI_Request_f2c(f); }
#else
// MPICH's conversions are casts (macros of its mpi.h).
inline MPI_Datatype TypeOf(MPI_Fint f) { return MPI_Type_f2c(f); }
inline MPI_Op OpOf(MPI_Fint f) { return MPI_Op_f2c(f); }
inline MPI_Comm CommOf(MPI_Fint f) { return MPI_Comm_f2c(f); }
inline MPI_Request RequestOf(MPI_Fint f) { return MPI_Request_f2c(f); }
#endif

// An array of type handles converted for one call (MPI_Alltoallw): one per
// process of `comm`'s (remote) group. Up to kInline of them live in the
// object itself, so the common case allocates nothing; a null array or an
// invalid communicator gives a null array, and the library reports it.
class TypesOf {
 public:
  TypesOf(const MPI_Fint* f, MPI_Comm comm) {
    int inter = 0, n = 0;
    if (f == nullptr || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
        (inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) !=
            MPI_SUCCESS ||
        n <= 0) {
      return;
    }
    if (n > kInline) {
      heap_ = new (std::nothrow) MPI_Datatype[n];
      if (heap_ == nullptr) return;
    }
    types_ = heap_ != nullptr ? heap_ : inline_;
    for (int i = 0; i < n; ++i) types_[i] = TypeOf(f[i]);
  }
  ~TypesOf() { delete[] heap_; }
  TypesOf(const TypesOf&) = delete;
  TypesOf& operator=(const TypesOf&) = delete;
  const MPI_Datatype* data() const { return types_; }

 private:
  static constexpr int kInline = 64;
  MPI_Datatype inline_[kInline];
  MPI_Datatype* heap_ = nullptr;
  MPI_Datatype* types_ = nullptr;
};

inline void SetError(MPI_Fint* ierror, int rc) {
  if (ierror != nullptr) *ierror = rc;
}

// A Fortran routine of the library the shim forwards to unchanged (the
// counted collectives, MPI_START & co.): a pointer in `Slot` that starts on
// Stub, which looks the routine up by `Name` (a profiling name the shim
// never defines, pmpi_iallreduce_: in the library the entry points came
// from, else anywhere in the process), stores it and calls it. A routine
// not found fails the call with MPI_ERR_OTHER and one line on stderr.
template <class F>
struct Library;
template <class... A>
struct Library<void (*)(A...)> {
  using Fn = void (*)(A...);
  template <std::atomic<Fn>* Slot, const char* Name>
  static void Stub(A... args) {
    void* sym = pmpi::Symbol(Name);
    if (sym == nullptr) sym = dlsym(RTLD_DEFAULT, Name);
    if (sym == nullptr) {
      static std::atomic<bool> said{false};
      if (!said.exchange(true)) {
        static const char kLine[] = "colltune: a Fortran routine of MPI is missing: ";
        ssize_t ignored = write(2, kLine, sizeof kLine - 1);
        ignored = write(2, Name, __builtin_strlen(Name));
        ignored = write(2, "\n", 1);
        (void)ignored;
      }
      // IERROR is the last argument.
      SetError(std::get<sizeof...(A) - 1>(std::forward_as_tuple(args...)), MPI_ERR_OTHER);
      return;
    }
    const Fn f = reinterpret_cast<Fn>(sym);
    Slot->store(f, std::memory_order_relaxed);
    f(args...);
  }
};

}  // namespace colltune::shim::fortran

#endif  // COLLTUNE_SHIM_FORTRAN_FORTRAN_H_
