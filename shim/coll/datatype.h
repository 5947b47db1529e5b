// Datatype layouts and the copies mock-ups make between user buffers and
// scratch memory.
//
// Two representations are used:
//  * packed bytes (count * MPI_Type_size bytes, the typemap's bytes in order):
//    for data-movement mock-ups, whose datatypes may differ between ranks
//    (only type signatures must match), so sizes in bytes are the only
//    rank-invariant measure. Packed bytes travel as MPI_BYTE on both ends of
//    every transfer (never MPI_PACKED against a typed receive: MPICH 4.0
//    truncates such messages); a rank whose type is dense uses its own buffer
//    as the bytes, others stage through scratch. This assumes a homogeneous
//    system, as every MPI library's native representation does.
//  * the user's datatype layout: for reductions, where the operation must see
//    the user's datatype and MPI requires the same datatype on every rank.
//
// Dense types (predefined, no gaps, lower bound 0) are copied with memcpy;
// every other type with MPI_Pack/MPI_Unpack, never a send to self.
#ifndef COLLTUNE_SHIM_COLL_DATATYPE_H_
#define COLLTUNE_SHIM_COLL_DATATYPE_H_

#include <cstdint>
#include <type_traits>

#include "shim/mpi/mpi.h"

namespace colltune::shim {

struct Layout {
  int64_t size = 0;  // MPI_Type_size
  MPI_Aint lb = 0, extent = 0;
  MPI_Aint true_lb = 0, true_extent = 0;
  // `count` elements are exactly count*size bytes at the buffer's address,
  // in typemap order.
  bool dense = false;

  // No gaps: `count` elements are count*size consecutive bytes (a
  // contiguous derived type is, a vector with a stride is not).
  bool Contiguous() const {
    return true_extent == size && extent == size;
  }
  // Bytes that hold `count` elements laid out as this type.
  uint64_t Span(int64_t count) const {
    return count <= 0 ? 0
                      : static_cast<uint64_t>((count - 1) * extent + true_extent);
  }
  // The buffer address to give MPI for elements stored from `mem` on.
  void* Base(void* mem) const { return static_cast<char*>(mem) - true_lb; }
  // Address of element `i` of a buffer in this layout.
  template <class T>
  T* At(T* buf, int64_t i) const {
    using Byte = std::conditional_t<std::is_const_v<T>, const char, char>;
    return reinterpret_cast<T*>(reinterpret_cast<Byte*>(buf) + i * extent);
  }
};

// Fills *layout; returns the MPI error code of the first query that failed.
// MPI's predefined datatypes are answered from a table built on first use
// (after MPI_Init), without any MPI call; derived types are queried.
int GetLayout(MPI_Datatype type, Layout* layout);

// Whether `type` is one of the predefined datatypes that table answers for
// (no MPI call).
bool IsPredefinedType(MPI_Datatype type);

// The layouts of a call's receive type and, unless `in_place`, its send type.
int GetLayouts(MPI_Datatype sendtype, bool in_place, MPI_Datatype recvtype, Layout* send,
               Layout* recv);

// MPI_Type_size, from the same table for predefined types; -1 on error.
// Inline for the predefined type this thread asked for last: a dispatched
// call asks once, mostly of the type its predecessor had (predefined handles
// never change meaning; derived ones are asked of MPI every time).
inline int64_t TypeSize(MPI_Datatype type);
namespace type_size {
struct Last {
  MPI_Datatype type;
  int64_t size;
  bool set;
};
// Initial-exec TLS, zero-initialized: one load off the thread pointer.
inline thread_local Last tls_last __attribute__((tls_model("initial-exec"))) = {};
int64_t Ask(MPI_Datatype type);  // the table, else MPI; remembers predefined types
}  // namespace type_size
inline int64_t TypeSize(MPI_Datatype type) {
  const type_size::Last& last = type_size::tls_last;
  if (last.set && last.type == type) return last.size;
  return type_size::Ask(type);
}

// Copies `count` elements of `type` at `buf` to `bytes` as packed bytes.
int PackBytes(const void* buf, int64_t count, MPI_Datatype type,
              const Layout& layout, void* bytes);
// The reverse of PackBytes.
int UnpackBytes(const void* bytes, void* buf, int64_t count, MPI_Datatype type,
                const Layout& layout);

// Copies `count` elements between two buffers of the same layout. `temp`
// must hold count*size bytes unless the type is dense.
int CopyTyped(const void* src, void* dst, int64_t count, MPI_Datatype type,
              const Layout& layout, void* temp);
// The `temp` bytes CopyTyped needs.
inline uint64_t CopyTypedTemp(int64_t count, const Layout& layout) {
  return layout.dense ? 0 : static_cast<uint64_t>(count * layout.size);
}

// `count` elements of `type` at `buf`: a block of a user buffer.
struct Block {
  const void* buf;
  int count;
  MPI_Datatype type;
};

// Block `index` of `count` elements of `type` in `buf` (e.g. a rank's own
// block in an allgather receive buffer, used with MPI_IN_PLACE).
Block BlockOf(const void* buf, int index, int count, MPI_Datatype type);

// Packs a block into `bytes` (count * MPI_Type_size bytes).
int PackBlock(const Block& b, void* bytes);

// A receive address for an empty block that is no user buffer's: a pointer
// one past the end of a user buffer may equal the start of the next one
// (adjacent variables), and MPI libraries may refuse a call whose send and
// receive pointers are equal even when nothing is received (MPICH does).
void* EmptyBlockAddress();

// True for MPI's predefined reduction operations. Mock-ups that would apply a
// user-defined operation to padding they invented are not eligible.
bool IsPredefinedOp(MPI_Op op);

inline constexpr uint64_t kAlign = 64;
// Room a piece of `n` bytes takes in a scratch lease. Even an empty piece
// takes some, so that two pieces never share an address: MPI libraries may
// refuse aliased send and receive buffers even when their counts are 0.
inline uint64_t AlignUp(uint64_t n) {
  return n == 0 ? kAlign : (n + kAlign - 1) & ~(kAlign - 1);
}

// Hands out consecutive aligned pieces of one scratch lease. A mock-up's
// scratch need is the sum of AlignUp() of its pieces, in the same order.
class Carver {
 public:
  explicit Carver(void* base) : next_(static_cast<char*>(base)) {}
  void* Take(uint64_t bytes) {
    char* p = next_;
    next_ += AlignUp(bytes);
    return p;
  }

 private:
  char* next_;
};

}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_COLL_DATATYPE_H_
