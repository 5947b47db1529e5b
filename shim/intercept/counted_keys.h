// What the counting wrappers of the C (intercept/counted.cc) and Fortran
// (fortran/counted_bindings.txt) entry points share: the size keys of the
// counted collectives, from the call's arguments alone (see counted.cc for
// which key each collective takes), and request handles as the integers
// the table of persistent collective requests holds (runtime/counted.h).
#ifndef COLLTUNE_SHIM_INTERCEPT_COUNTED_KEYS_H_
#define COLLTUNE_SHIM_INTERCEPT_COUNTED_KEYS_H_

#include <cstdint>
#include <type_traits>

#include "shim/coll/calls.h"
#include "shim/mpi/mpi.h"
#include "shim/runtime/counted.h"

namespace colltune::shim::counted_keys {

inline int64_t BlockKey(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        int recvcount, MPI_Datatype recvtype) {
  return sendbuf == MPI_IN_PLACE ? Bytes(recvcount, recvtype) : Bytes(sendcount, sendtype);
}

inline int64_t Rooted(int count, MPI_Datatype type, int root) {
  return root == MPI_PROC_NULL ? 0 : Bytes(count, type);
}

inline int64_t GatherKey(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                         int recvcount, MPI_Datatype recvtype, int root) {
  if (root == MPI_PROC_NULL) return 0;
  if (root == MPI_ROOT || sendbuf == MPI_IN_PLACE) return Bytes(recvcount, recvtype);
  return Bytes(sendcount, sendtype);
}

inline int64_t ScatterKey(int sendcount, MPI_Datatype sendtype, const void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root) {
  if (root == MPI_PROC_NULL) return 0;
  if (root == MPI_ROOT || recvbuf == MPI_IN_PLACE) return Bytes(sendcount, sendtype);
  return Bytes(recvcount, recvtype);
}

// A request handle as the table's key: Open MPI's pointer, MPICH's int (its
// handles have kind bits set, never 0 or 1).
template <class R>
inline uintptr_t HandleKey(R r) {
  if constexpr (std::is_pointer_v<R>) {
    return reinterpret_cast<uintptr_t>(r);
  } else {
    return static_cast<uintptr_t>(static_cast<uint32_t>(r));
  }
}
inline uintptr_t RequestKey(MPI_Request r) { return HandleKey(r); }

// After a persistent initialization `init` with size key `bytes` made
// `request` (rc: its result): records the request, so its starts count.
inline void TrackRequest(int rc, MPI_Request request, int init, int64_t bytes) {
  if (rc != MPI_SUCCESS) return;
  const int cell = counted::StartCellOf(init, bytes);
  if (cell >= 0) counted::requests::Add(RequestKey(request), cell);
}

// One start of `request`: counted if it is a persistent collective request.
inline void CountStart(MPI_Request request) {
  const int cell = counted::requests::Find(RequestKey(request));
  if (cell >= 0) counted::AddCell(cell);
}

}  // namespace colltune::shim::counted_keys

#endif  // COLLTUNE_SHIM_INTERCEPT_COUNTED_KEYS_H_
