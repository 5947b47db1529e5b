// The shim includes MPI through this header, never <mpi.h> directly.
//
// Every MPI symbol the shim references is made a weak reference. The shim is
// often preloaded into processes that have no MPI at all (a job script that
// exports LD_PRELOAD preloads it into mpirun, bash and the agent too); strong
// undefined references to PMPI functions and to Open MPI's predefined handle
// objects would make the dynamic linker refuse to start those programs. In an
// MPI process the weak references bind to the library as usual.
// tests/shim/symbols_test.sh fails if a strong MPI reference slips in.
#ifndef COLLTUNE_SHIM_MPI_MPI_H_
#define COLLTUNE_SHIM_MPI_MPI_H_

#include <mpi.h>

#pragma weak OMPI_C_MPI_COMM_NULL_COPY_FN
#pragma weak PMPI_Abort
#pragma weak PMPI_Allgather
#pragma weak PMPI_Allgatherv
#pragma weak PMPI_Allreduce
#pragma weak PMPI_Alltoall
#pragma weak PMPI_Alltoallv
#pragma weak PMPI_Barrier
#pragma weak PMPI_Bcast
#pragma weak PMPI_Comm_create_keyval
#pragma weak PMPI_Comm_delete_attr
#pragma weak PMPI_Comm_dup
#pragma weak PMPI_Comm_free
#pragma weak PMPI_Comm_free_keyval
#pragma weak PMPI_Comm_get_attr
#pragma weak PMPI_Comm_rank
#pragma weak PMPI_Comm_set_attr
#pragma weak PMPI_Comm_size
#pragma weak PMPI_Comm_split_type
#pragma weak PMPI_Comm_test_inter
#pragma weak PMPI_Exscan
#pragma weak PMPI_Finalize
#pragma weak PMPI_Finalized
#pragma weak PMPI_Gather
#pragma weak PMPI_Gatherv
#pragma weak PMPI_Get_library_version
#pragma weak PMPI_Init
#pragma weak PMPI_Init_thread
#pragma weak PMPI_Initialized
#pragma weak PMPI_Irecv
#pragma weak PMPI_Isend
#pragma weak PMPI_Op_commutative
#pragma weak PMPI_Pack
#pragma weak PMPI_Query_thread
#pragma weak PMPI_Recv
#pragma weak PMPI_Reduce
#pragma weak PMPI_Reduce_local
#pragma weak PMPI_Reduce_scatter
#pragma weak PMPI_Reduce_scatter_block
#pragma weak PMPI_Scan
#pragma weak PMPI_Scatter
#pragma weak PMPI_Scatterv
#pragma weak PMPI_Send
#pragma weak PMPI_Sendrecv
#pragma weak PMPI_Type_commit
#pragma weak PMPI_Type_create_hindexed
#pragma weak PMPI_Type_free
#pragma weak PMPI_Type_get_envelope
#pragma weak PMPI_Type_get_extent
#pragma weak PMPI_Type_get_true_extent
#pragma weak PMPI_Type_size
#pragma weak PMPI_Unpack
#pragma weak PMPI_Waitall
#pragma weak PMPI_Wtime

#if defined(OPEN_MPI)
// Open MPI's predefined handles are addresses of these objects.
#pragma weak ompi_mpi_comm_world
#pragma weak ompi_mpi_comm_self
#pragma weak ompi_mpi_comm_null
#pragma weak ompi_mpi_datatype_null
#pragma weak ompi_mpi_2int
#pragma weak ompi_mpi_aint
#pragma weak ompi_mpi_byte
#pragma weak ompi_mpi_c_bool
#pragma weak ompi_mpi_c_double_complex
#pragma weak ompi_mpi_c_float_complex
#pragma weak ompi_mpi_c_long_double_complex
#pragma weak ompi_mpi_char
#pragma weak ompi_mpi_character
#pragma weak ompi_mpi_count
#pragma weak ompi_mpi_cplex
#pragma weak ompi_mpi_dblcplex
#pragma weak ompi_mpi_dblprec
#pragma weak ompi_mpi_double
#pragma weak ompi_mpi_double_int
#pragma weak ompi_mpi_float
#pragma weak ompi_mpi_float_int
#pragma weak ompi_mpi_int
#pragma weak ompi_mpi_int16_t
#pragma weak ompi_mpi_int32_t
#pragma weak ompi_mpi_int64_t
#pragma weak ompi_mpi_int8_t
#pragma weak ompi_mpi_integer
#pragma weak ompi_mpi_logical
#pragma weak ompi_mpi_long
#pragma weak ompi_mpi_long_double
#pragma weak ompi_mpi_long_int
#pragma weak ompi_mpi_long_long_int
#pragma weak ompi_mpi_longdbl_int
#pragma weak ompi_mpi_offset
#pragma weak ompi_mpi_packed
#pragma weak ompi_mpi_real
#pragma weak ompi_mpi_short
#pragma weak ompi_mpi_short_int
#pragma weak ompi_mpi_signed_char
#pragma weak ompi_mpi_uint16_t
#pragma weak ompi_mpi_uint32_t
#pragma weak ompi_mpi_uint64_t
#pragma weak ompi_mpi_uint8_t
#pragma weak ompi_mpi_unsigned
#pragma weak ompi_mpi_unsigned_char
#pragma weak ompi_mpi_unsigned_long
#pragma weak ompi_mpi_unsigned_long_long
#pragma weak ompi_mpi_unsigned_short
#pragma weak ompi_mpi_wchar
#pragma weak ompi_mpi_info_null
#pragma weak ompi_mpi_op_null
#pragma weak ompi_mpi_op_max
#pragma weak ompi_mpi_op_min
#pragma weak ompi_mpi_op_sum
#pragma weak ompi_mpi_op_prod
#pragma weak ompi_mpi_op_land
#pragma weak ompi_mpi_op_band
#pragma weak ompi_mpi_op_lor
#pragma weak ompi_mpi_op_bor
#pragma weak ompi_mpi_op_lxor
#pragma weak ompi_mpi_op_bxor
#pragma weak ompi_mpi_op_minloc
#pragma weak ompi_mpi_op_maxloc
#pragma weak ompi_mpi_op_replace
#pragma weak ompi_mpi_op_no_op
#endif

#endif  // COLLTUNE_SHIM_MPI_MPI_H_
