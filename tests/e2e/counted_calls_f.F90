! The Fortran side of counted_calls_test.sh: non-blocking, neighbourhood and
! persistent collectives and MPI_START/MPI_STARTALL called a known number of
! times from Fortran, in one of the three bindings (BINDING 1: include
! 'mpif.h', 2: use mpi, 3: use mpi_f08). Persistent collectives are MPI-4's
! MPI_*_INIT (MPICH 4) or, built with -DOMPI, Open MPI 4.1's MPIX_*_INIT.
! Every rank checks its results; rank 0 prints the calls of all ranks as
!   COUNT <name> <bucket> <calls>
! (common/histogram.h's buckets; sizes: iallreduce 4 doubles = 32 B, bucket
! 6; ibcast 10 integers = 40 B, bucket 6; ibarrier 0; neighbor_alltoall 2
! integers per neighbour = 8 B, bucket 4; ineighbor_allgather 1 integer =
! 4 B, bucket 3; allreduce_init 16 integers = 64 B, bucket 7, and its
! starts; barrier_init and its starts, 0) and "results verified".
program counted_calls_f
#if BINDING == 3
  use mpi_f08
#if defined(OMPI)
  use mpi_f08_ext
#endif
#elif BINDING == 2
  use mpi
#endif
  implicit none
#if BINDING == 1
  include 'mpif.h'
#endif
#if BINDING == 3
#define COMM type(MPI_Comm)
#define REQUEST type(MPI_Request)
#else
#define COMM integer
#define REQUEST integer
#endif
#if defined(OMPI)
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define BARRIER_INIT MPIX_Barrier_init
#else
#define ALLREDUCE_INIT MPI_Allreduce_init
#define BARRIER_INIT MPI_Barrier_init
#endif
  integer, parameter :: ncells = 9
  character(len=32) :: names(ncells)
  integer :: buckets(ncells), cells(ncells), sums(ncells)
  integer :: rank, nprocs, ierr, it, i, bad, total_bad, left, right
  COMM :: ring
  REQUEST :: req, reqs(2)
  double precision :: x(4), y(4)
  integer :: ib(10), a16(16), r16(16), snd(4), rcv(4), one, two(2)
  integer :: dims(1)
  logical :: periods(1)

  names = [character(len=32) :: 'iallreduce', 'ibcast', 'ibarrier', 'neighbor_alltoall', &
           'ineighbor_allgather', 'allreduce_init', 'allreduce_init_start', 'barrier_init', &
           'barrier_init_start']
  buckets = [6, 6, 0, 4, 3, 7, 7, 0, 0]
  cells = 0
  bad = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  do it = 1, 3
    x = [(dble(rank + i + it), i = 1, 4)]
    call MPI_Iallreduce(x, y, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, req, ierr)
    cells(1) = cells(1) + 1
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    do i = 1, 4
      if (y(i) /= dble(nprocs * (nprocs - 1) / 2 + nprocs * (i + it))) bad = bad + 1
    end do
  end do

  do it = 1, 2
    if (rank == 0) then
      ib = [(100 * it + i, i = 1, 10)]
    else
      ib = -1
    end if
    call MPI_Ibcast(ib, 10, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
    cells(2) = cells(2) + 1
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    do i = 1, 10
      if (ib(i) /= 100 * it + i) bad = bad + 1
    end do
  end do

  do it = 1, 2
    call MPI_Ibarrier(MPI_COMM_WORLD, req, ierr)
    cells(3) = cells(3) + 1
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  end do

  ! A periodic ring: neighbours (rank - 1) and (rank + 1), in that order.
  dims(1) = nprocs
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., ring, ierr)
  call MPI_Cart_shift(ring, 0, 1, left, right, ierr)
  do it = 1, 2
    snd = [(rank * 10 + it + i, i = 0, 3)]
    rcv = -1
    call MPI_Neighbor_alltoall(snd, 2, MPI_INTEGER, rcv, 2, MPI_INTEGER, ring, ierr)
    cells(4) = cells(4) + 1
    if (rcv(1) /= left * 10 + it + 2 .or. rcv(2) /= left * 10 + it + 3 .or. &
        rcv(3) /= right * 10 + it .or. rcv(4) /= right * 10 + it + 1) bad = bad + 1
  end do
  one = rank + 1000
  two = -1
  call MPI_Ineighbor_allgather(one, 1, MPI_INTEGER, two, 1, MPI_INTEGER, ring, req, ierr)
  cells(5) = cells(5) + 1
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (two(1) /= left + 1000 .or. two(2) /= right + 1000) bad = bad + 1

  ! Persistent: an allreduce started 5 times with MPI_START, then twice more
  ! with a barrier in MPI_STARTALL.
  call ALLREDUCE_INIT(a16, r16, 16, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &
                      reqs(1), ierr)
  cells(6) = cells(6) + 1
  do it = 1, 5
    a16 = [(rank * it + i, i = 1, 16)]
    call MPI_Start(reqs(1), ierr)
    cells(7) = cells(7) + 1
    call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
    do i = 1, 16
      if (r16(i) /= it * nprocs * (nprocs - 1) / 2 + nprocs * i) bad = bad + 1
    end do
  end do
  call BARRIER_INIT(MPI_COMM_WORLD, MPI_INFO_NULL, reqs(2), ierr)
  cells(8) = cells(8) + 1
  do it = 1, 2
    a16 = [(rank + it * i, i = 1, 16)]
    call MPI_Startall(2, reqs, ierr)
    cells(7) = cells(7) + 1
    cells(9) = cells(9) + 1
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    do i = 1, 16
      if (r16(i) /= nprocs * (nprocs - 1) / 2 + nprocs * it * i) bad = bad + 1
    end do
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)
  call MPI_Comm_free(ring, ierr)

  call MPI_Reduce(cells, sums, ncells, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Reduce(bad, total_bad, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    do i = 1, ncells
      write (*, '(A, A, A, I0, A, I0)') 'COUNT ', trim(names(i)), ' ', buckets(i), ' ', sums(i)
    end do
    if (total_bad == 0) then
      write (*, '(A)') 'results verified'
    else
      write (*, '(A, I0, A)') 'fortran: ', total_bad, ' wrong results'
    end if
    flush (6)
  end if
  call MPI_Finalize(ierr)
end program counted_calls_f
