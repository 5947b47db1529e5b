! colltune-loop for Fortran (bench/loop.c's method): blocks of 8-byte
! MPI_ALLREDUCE calls made through the shim's Fortran entry point
! (MPI_ALLREDUCE, which the shim defines) alternate with blocks made straight
! to the library's Fortran routine (PMPI_ALLREDUCE, which the shim does not
! define), in one job; rank 0 prints the median time per call of each and
! their ratio. Built and run by scripts/fortran_overhead.sh.
!
!   mpirun -np 2 -x LD_PRELOAD=libcolltune.so fortran_loop [calls per block]
program fortran_loop
  use mpi
  implicit none
  integer, parameter :: blocks = 200
  integer :: rank, ierr, b, k, i, which, block, nargs
  character(len=32) :: arg
  double precision :: x, y, t0, local, slowest
  double precision :: t(blocks, 2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  block = 1000
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) block
  end if
  x = rank
  do i = 1, block
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call PMPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  do b = 1, blocks
    do k = 0, 1
      which = mod(b + k, 2) + 1
      call PMPI_Barrier(MPI_COMM_WORLD, ierr)
      t0 = MPI_Wtime()
      if (which == 1) then
        do i = 1, block
          call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
        end do
      else
        do i = 1, block
          call PMPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
        end do
      end if
      local = (MPI_Wtime() - t0) / block
      call PMPI_Allreduce(local, slowest, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
      t(b, which) = slowest
    end do
  end do
  if (rank == 0) then
    call sort(t(:, 1))
    call sort(t(:, 2))
    print '(a,f8.4,a,f8.4,a,f7.4)', 'fortran allreduce 8 B: MPI_ (through the shim) ', &
          t(blocks / 2, 1) * 1d6, ' us/call, PMPI_ (library) ', t(blocks / 2, 2) * 1d6, &
          ' us/call, ratio ', t(blocks / 2, 1) / t(blocks / 2, 2)
  end if
  call MPI_Finalize(ierr)
contains
  subroutine sort(a)
    double precision, intent(inout) :: a(:)
    integer :: p, q
    double precision :: v
    do p = 2, size(a)
      v = a(p)
      q = p - 1
      do while (q >= 1)
        if (a(q) <= v) exit
        a(q + 1) = a(q)
        q = q - 1
      end do
      a(q + 1) = v
    end do
  end subroutine
end program
