// The shim includes MPI through this header, never <mpi.h> directly.
//
// The shim holds no reference to any MPI symbol. Every PMPI function it
// calls, and every predefined Open MPI handle object it names, is a pointer
// that shim/mpi/pmpi.cc looks up in the MPI library the job actually loaded
// (pmpi.h says how and when). Link-time references cannot do this:
//  * the shim is preloaded into processes with no MPI at all (mpirun, bash,
//    the agent), where strong references would stop them from starting;
//  * MPI may arrive later, by dlopen with RTLD_LOCAL (Python's mpi4py, Julia,
//    R): references bound when the shim was preloaded would stay null
//    forever (weak ones did, and the first MPI_Init_thread jumped to 0).
// A call through one of these pointers costs what a call through the PLT
// costs. Before the lookup, each function pointer holds a stub that does the
// lookup, so no call ever jumps to address 0; a function the library lacks
// fails with MPI_ERR_OTHER and one line on stderr.
//
// Code keeps writing PMPI_Allreduce, MPI_COMM_WORLD, MPI_SUM: the macros
// below turn them into the looked-up pointers. A PMPI function missing from
// COLLTUNE_PMPI_FUNCTIONS would be a link-time reference again, which
// tests/e2e/shim_library_test.sh refuses.
#ifndef COLLTUNE_SHIM_MPI_MPI_H_
#define COLLTUNE_SHIM_MPI_MPI_H_

#include <mpi.h>

#include "shim/mpi/counted_pmpi.h"

// Every PMPI function the shim calls.
#define COLLTUNE_PMPI_FUNCTIONS(X)                                         \
  X(Abort) X(Allgather) X(Allgatherv) X(Allreduce) X(Alltoall)             \
  X(Alltoallv) X(Alltoallw) X(Barrier) X(Bcast) X(Comm_call_errhandler) X(Comm_create)  \
  X(Comm_create_keyval) X(Comm_delete_attr) X(Comm_dup) X(Comm_free)       \
  X(Comm_free_keyval) X(Comm_get_attr) X(Comm_group) X(Comm_rank)          \
  X(Comm_remote_size)                                                      \
  X(Comm_set_attr) X(Comm_set_errhandler) X(Comm_size) X(Comm_split)   \
  X(Comm_split_type)                                                       \
  X(Comm_test_inter) X(Exscan) X(Finalize) X(Finalized) X(Gather)          \
  X(Gatherv) X(Get_library_version) X(Group_free) X(Init) X(Init_thread)   \
  X(Initialized) X(Irecv) X(Isend) X(Op_commutative) X(Pack)               \
  X(Query_thread) X(Recv) X(Reduce) X(Reduce_local) X(Reduce_scatter)      \
  X(Reduce_scatter_block) X(Scan) X(Scatter) X(Scatterv) X(Send)           \
  X(Sendrecv) X(Sendrecv_replace) X(T_cvar_get_index) X(T_cvar_get_info) X(T_cvar_handle_alloc)  \
  X(T_cvar_handle_free) X(T_cvar_read) X(T_cvar_write) X(T_enum_get_info)  \
  X(T_enum_get_item) X(T_finalize) X(T_init_thread) X(Type_commit)         \
  X(Type_contiguous) X(Type_create_hindexed) X(Type_create_hindexed_block) \
  X(Type_create_hvector) X(Type_create_keyval)                             \
  X(Type_create_resized) X(Type_create_struct) X(Type_dup) X(Type_free)    \
  X(Type_get_attr) X(Type_get_contents) X(Type_get_envelope)               \
  X(Type_get_extent) X(Type_get_true_extent) X(Type_set_attr) X(Type_size) \
  X(Unpack)                                                                \
  X(Waitall) X(Wtime)                                                      \
  COLLTUNE_LIBRARY_PMPI_FUNCTIONS(X) COLLTUNE_COUNTED_PMPI_FUNCTIONS(X)

// Handle conversions are functions in Open MPI (the Fortran entry points
// call them), macros in MPICH.
#if defined(OPEN_MPI)
#define COLLTUNE_LIBRARY_PMPI_FUNCTIONS(X) X(Comm_f2c) X(Type_f2c) X(Op_f2c) X(Request_f2c)
#else
#define COLLTUNE_LIBRARY_PMPI_FUNCTIONS(X)
#endif

namespace colltune::shim::pmpi {
#define COLLTUNE_PMPI_DECLARE(name) extern decltype(&::PMPI_##name) name;
COLLTUNE_PMPI_FUNCTIONS(COLLTUNE_PMPI_DECLARE)
#undef COLLTUNE_PMPI_DECLARE
#define COLLTUNE_PMPI_DECLARE_PERSISTENT(name) \
  extern decltype(&::COLLTUNE_PERSISTENT_PMPI(name)) name;
COLLTUNE_PERSISTENT_PMPI_FUNCTIONS(COLLTUNE_PMPI_DECLARE_PERSISTENT)
#undef COLLTUNE_PMPI_DECLARE_PERSISTENT
}  // namespace colltune::shim::pmpi

#if defined(OPEN_MPI)
#define PMPI_Comm_f2c ::colltune::shim::pmpi::Comm_f2c
#define PMPI_Type_f2c ::colltune::shim::pmpi::Type_f2c
#define PMPI_Op_f2c ::colltune::shim::pmpi::Op_f2c
#define PMPI_Request_f2c ::colltune::shim::pmpi::Request_f2c
#endif
#define PMPI_Abort ::colltune::shim::pmpi::Abort
#define PMPI_Allgather ::colltune::shim::pmpi::Allgather
#define PMPI_Allgatherv ::colltune::shim::pmpi::Allgatherv
#define PMPI_Allreduce ::colltune::shim::pmpi::Allreduce
#define PMPI_Alltoall ::colltune::shim::pmpi::Alltoall
#define PMPI_Alltoallv ::colltune::shim::pmpi::Alltoallv
#define PMPI_Alltoallw ::colltune::shim::pmpi::Alltoallw
#define PMPI_Barrier ::colltune::shim::pmpi::Barrier
#define PMPI_Bcast ::colltune::shim::pmpi::Bcast
#define PMPI_Comm_call_errhandler ::colltune::shim::pmpi::Comm_call_errhandler
#define PMPI_Comm_create ::colltune::shim::pmpi::Comm_create
#define PMPI_Comm_create_keyval ::colltune::shim::pmpi::Comm_create_keyval
#define PMPI_Comm_delete_attr ::colltune::shim::pmpi::Comm_delete_attr
#define PMPI_Comm_dup ::colltune::shim::pmpi::Comm_dup
#define PMPI_Comm_free ::colltune::shim::pmpi::Comm_free
#define PMPI_Comm_free_keyval ::colltune::shim::pmpi::Comm_free_keyval
#define PMPI_Comm_get_attr ::colltune::shim::pmpi::Comm_get_attr
#define PMPI_Comm_group ::colltune::shim::pmpi::Comm_group
#define PMPI_Comm_rank ::colltune::shim::pmpi::Comm_rank
#define PMPI_Comm_remote_size ::colltune::shim::pmpi::Comm_remote_size
#define PMPI_Comm_set_attr ::colltune::shim::pmpi::Comm_set_attr
#define PMPI_Comm_set_errhandler ::colltune::shim::pmpi::Comm_set_errhandler
#define PMPI_Comm_size ::colltune::shim::pmpi::Comm_size
#define PMPI_Comm_split ::colltune::shim::pmpi::Comm_split
#define PMPI_Comm_split_type ::colltune::shim::pmpi::Comm_split_type
#define PMPI_Comm_test_inter ::colltune::shim::pmpi::Comm_test_inter
#define PMPI_Exscan ::colltune::shim::pmpi::Exscan
#define PMPI_Finalize ::colltune::shim::pmpi::Finalize
#define PMPI_Finalized ::colltune::shim::pmpi::Finalized
#define PMPI_Gather ::colltune::shim::pmpi::Gather
#define PMPI_Gatherv ::colltune::shim::pmpi::Gatherv
#define PMPI_Get_library_version ::colltune::shim::pmpi::Get_library_version
#define PMPI_Group_free ::colltune::shim::pmpi::Group_free
#define PMPI_Init ::colltune::shim::pmpi::Init
#define PMPI_Init_thread ::colltune::shim::pmpi::Init_thread
#define PMPI_Initialized ::colltune::shim::pmpi::Initialized
#define PMPI_Irecv ::colltune::shim::pmpi::Irecv
#define PMPI_Isend ::colltune::shim::pmpi::Isend
#define PMPI_Op_commutative ::colltune::shim::pmpi::Op_commutative
#define PMPI_Pack ::colltune::shim::pmpi::Pack
#define PMPI_Query_thread ::colltune::shim::pmpi::Query_thread
#define PMPI_Recv ::colltune::shim::pmpi::Recv
#define PMPI_Reduce ::colltune::shim::pmpi::Reduce
#define PMPI_Reduce_local ::colltune::shim::pmpi::Reduce_local
#define PMPI_Reduce_scatter ::colltune::shim::pmpi::Reduce_scatter
#define PMPI_Reduce_scatter_block ::colltune::shim::pmpi::Reduce_scatter_block
#define PMPI_Scan ::colltune::shim::pmpi::Scan
#define PMPI_Scatter ::colltune::shim::pmpi::Scatter
#define PMPI_Scatterv ::colltune::shim::pmpi::Scatterv
#define PMPI_Send ::colltune::shim::pmpi::Send
#define PMPI_Sendrecv ::colltune::shim::pmpi::Sendrecv
#define PMPI_Sendrecv_replace ::colltune::shim::pmpi::Sendrecv_replace
#define PMPI_T_cvar_get_info ::colltune::shim::pmpi::T_cvar_get_info
#define PMPI_T_cvar_get_index ::colltune::shim::pmpi::T_cvar_get_index
#define PMPI_T_cvar_handle_alloc ::colltune::shim::pmpi::T_cvar_handle_alloc
#define PMPI_T_cvar_handle_free ::colltune::shim::pmpi::T_cvar_handle_free
#define PMPI_T_cvar_read ::colltune::shim::pmpi::T_cvar_read
#define PMPI_T_cvar_write ::colltune::shim::pmpi::T_cvar_write
#define PMPI_T_enum_get_info ::colltune::shim::pmpi::T_enum_get_info
#define PMPI_T_enum_get_item ::colltune::shim::pmpi::T_enum_get_item
#define PMPI_T_finalize ::colltune::shim::pmpi::T_finalize
#define PMPI_T_init_thread ::colltune::shim::pmpi::T_init_thread
#define PMPI_Type_commit ::colltune::shim::pmpi::Type_commit
#define PMPI_Type_contiguous ::colltune::shim::pmpi::Type_contiguous
#define PMPI_Type_create_hindexed ::colltune::shim::pmpi::Type_create_hindexed
#define PMPI_Type_create_hindexed_block ::colltune::shim::pmpi::Type_create_hindexed_block
#define PMPI_Type_create_hvector ::colltune::shim::pmpi::Type_create_hvector
#define PMPI_Type_create_keyval ::colltune::shim::pmpi::Type_create_keyval
#define PMPI_Type_create_resized ::colltune::shim::pmpi::Type_create_resized
#define PMPI_Type_create_struct ::colltune::shim::pmpi::Type_create_struct
#define PMPI_Type_dup ::colltune::shim::pmpi::Type_dup
#define PMPI_Type_free ::colltune::shim::pmpi::Type_free
#define PMPI_Type_get_attr ::colltune::shim::pmpi::Type_get_attr
#define PMPI_Type_get_contents ::colltune::shim::pmpi::Type_get_contents
#define PMPI_Type_get_envelope ::colltune::shim::pmpi::Type_get_envelope
#define PMPI_Type_get_extent ::colltune::shim::pmpi::Type_get_extent
#define PMPI_Type_get_true_extent ::colltune::shim::pmpi::Type_get_true_extent
#define PMPI_Type_set_attr ::colltune::shim::pmpi::Type_set_attr
#define PMPI_Type_size ::colltune::shim::pmpi::Type_size
#define PMPI_Unpack ::colltune::shim::pmpi::Unpack
#define PMPI_Waitall ::colltune::shim::pmpi::Waitall
#define PMPI_Wtime ::colltune::shim::pmpi::Wtime

#if defined(OPEN_MPI)
// Open MPI's predefined handles are addresses of objects in libmpi; the
// shim names these ones (a handle missing here does not compile).
#define COLLTUNE_OMPI_OBJECTS(X)                                            \
  X(ompi_mpi_comm_world) X(ompi_mpi_comm_self) X(ompi_mpi_comm_null)        \
  X(ompi_mpi_datatype_null) X(ompi_mpi_2int) X(ompi_mpi_aint)               \
  X(ompi_mpi_byte) X(ompi_mpi_c_bool) X(ompi_mpi_c_double_complex)          \
  X(ompi_mpi_c_float_complex) X(ompi_mpi_c_long_double_complex)             \
  X(ompi_mpi_char) X(ompi_mpi_character) X(ompi_mpi_count) X(ompi_mpi_cplex) \
  X(ompi_mpi_dblcplex) X(ompi_mpi_dblprec) X(ompi_mpi_double)               \
  X(ompi_mpi_double_int) X(ompi_mpi_float) X(ompi_mpi_float_int)            \
  X(ompi_mpi_int) X(ompi_mpi_int16_t) X(ompi_mpi_int32_t) X(ompi_mpi_int64_t) \
  X(ompi_mpi_int8_t) X(ompi_mpi_integer) X(ompi_mpi_logical) X(ompi_mpi_long) \
  X(ompi_mpi_long_double) X(ompi_mpi_long_int) X(ompi_mpi_long_long_int)    \
  X(ompi_mpi_longdbl_int) X(ompi_mpi_offset) X(ompi_mpi_packed)             \
  X(ompi_mpi_real) X(ompi_mpi_short) X(ompi_mpi_short_int)                  \
  X(ompi_mpi_signed_char) X(ompi_mpi_uint16_t) X(ompi_mpi_uint32_t)         \
  X(ompi_mpi_uint64_t) X(ompi_mpi_uint8_t) X(ompi_mpi_unsigned)             \
  X(ompi_mpi_unsigned_char) X(ompi_mpi_unsigned_long)                       \
  X(ompi_mpi_unsigned_long_long) X(ompi_mpi_unsigned_short) X(ompi_mpi_wchar) \
  X(ompi_mpi_info_null) X(ompi_mpi_op_null) X(ompi_mpi_op_max)              \
  X(ompi_mpi_op_min) X(ompi_mpi_op_sum) X(ompi_mpi_op_prod)                 \
  X(ompi_mpi_op_land) X(ompi_mpi_op_band) X(ompi_mpi_op_lor)                \
  X(ompi_mpi_op_bor) X(ompi_mpi_op_lxor) X(ompi_mpi_op_bxor)                \
  X(ompi_mpi_op_minloc) X(ompi_mpi_op_maxloc) X(ompi_mpi_op_replace)        \
  X(ompi_mpi_op_no_op) X(ompi_mpi_errors_return) X(ompi_mpi_group_null)

namespace colltune::shim::ompi {
#define COLLTUNE_OMPI_DECLARE(name) extern void* name;
COLLTUNE_OMPI_OBJECTS(COLLTUNE_OMPI_DECLARE)
#undef COLLTUNE_OMPI_DECLARE
}  // namespace colltune::shim::ompi

#undef OMPI_PREDEFINED_GLOBAL
#define OMPI_PREDEFINED_GLOBAL(type, global) \
  (static_cast<type>(::colltune::shim::ompi::global))
#endif  // OPEN_MPI

// MPI_COMM_NULL_COPY_FN and MPI_TYPE_NULL_COPY_FN are functions of the
// library in Open MPI; the shim passes its own equivalents (no copy on
// MPI_Comm_dup, MPI_Type_dup), and its own empty delete function.
namespace colltune::shim {
int NoCopy(MPI_Comm, int, void*, void*, void*, int* flag);
int NoTypeCopy(MPI_Datatype, int, void*, void*, void*, int* flag);
int NoTypeDelete(MPI_Datatype, int, void*, void*);
}  // namespace colltune::shim

#endif  // COLLTUNE_SHIM_MPI_MPI_H_
