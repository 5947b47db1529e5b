! The Fortran half of mixed_main.c: CALLS allreduces through mpif.h, each
! checked; wrong results are counted in BAD.
subroutine fortran_solver(calls, bad)
  implicit none
  include 'mpif.h'
  integer, intent(in) :: calls
  integer, intent(inout) :: bad
  integer :: i, rank, nprocs, x, y, ierr
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  do i = 0, calls - 1
    x = rank * 2 + i
    call MPI_Allreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (y /= nprocs * (nprocs - 1) + nprocs * i) bad = bad + 1
  end do
end subroutine
