! Bad input from Fortran (mpif.h): with MPI_ERRORS_RETURN on MPI_COMM_WORLD,
! each case prints the error class of the IERROR that came back (MPICH's
! codes also number the instance). Under the shim the same classes must come
! back: the shim neither turns library errors into crashes
! nor invents errors of its own. Case 1: an invalid communicator handle;
! case 2: MPI_IN_PLACE given to MPI_BCAST, which MPI forbids; case 3: a
! negative count.
program fortran_bad_input
  implicit none
  include 'mpif.h'
  integer :: ierr, x(4), y(4), bogus, which, rc, cls
  character(len=8) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call get_command_argument(1, arg)
  read (arg, *) which
  x = 1
  bogus = 12345
  select case (which)
  case (1)
    call MPI_Allreduce(x, y, 1, MPI_INTEGER, MPI_SUM, bogus, rc)
  case (2)
    call MPI_Bcast(MPI_IN_PLACE, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, rc)
  case (3)
    call MPI_Allreduce(x, y, -1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, rc)
  end select
  call MPI_Error_class(rc, cls, ierr)
  print '(a,i0,a,i0)', 'case ', which, ': error class ', cls
  call MPI_Finalize(ierr)
end program
