! Every collective the shim wraps, called from Fortran in one of the three
! bindings (BINDING 1: include 'mpif.h', 2: use mpi, 3: use mpi_f08), on
! MPI_COMM_WORLD and on a duplicate, out of place and, where MPI allows it,
! in place (MPI_IN_PLACE is Fortran's own sentinel, which the shim must
! translate). Every rank checks its results against values computed here;
! rank 0 prints "fortran: N wrong results" and how many calls of each
! collective it made, which tests/mpi/bindings_test.sh compares with what the
! shim says it ran. The f08 variant omits the optional IERROR on some calls.
program fortran_collectives
#if BINDING == 3
  use mpi_f08
#elif BINDING == 2
  use mpi
#endif
  implicit none
#if BINDING == 1
  include 'mpif.h'
#endif
#if BINDING == 3
  type(MPI_Comm) :: comms(2)
#else
  integer :: comms(2)
#endif
  integer, parameter :: n = 3
  integer :: rank, nprocs, ierr, provided, c, bad, total, j, k, root
  integer :: calls(17)
  integer, allocatable :: a(:), b(:), cnt(:), dsp(:), bdsp(:)
#if BINDING == 3
  type(MPI_Datatype), allocatable :: tys(:)
#else
  integer, allocatable :: tys(:)
#endif
  double precision :: x(n), y(n)

#if BINDING == 2
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
#else
  call MPI_Init(ierr)
#endif
  comms(1) = MPI_COMM_WORLD
  call MPI_Comm_dup(MPI_COMM_WORLD, comms(2), ierr)
  bad = 0
  calls = 0
  do c = 1, 2
    call MPI_Comm_rank(comms(c), rank, ierr)
    call MPI_Comm_size(comms(c), nprocs, ierr)
    allocate(a(n * nprocs), b(n * nprocs), cnt(nprocs), dsp(nprocs), bdsp(nprocs), tys(nprocs))

    ! allreduce, integers and doubles; in place
    do k = 1, n
      a(k) = rank + k
      x(k) = 0.5d0 * (rank + k)
    end do
    call MPI_Allreduce(a, b, n, MPI_INTEGER, MPI_SUM, comms(c), ierr)
    call expect_sum(b, n)
    call MPI_Allreduce(x, y, n, MPI_DOUBLE_PRECISION, MPI_SUM, comms(c), ierr)
    do k = 1, n
      if (y(k) /= 0.5d0 * (nprocs * (nprocs - 1) / 2 + nprocs * k)) bad = bad + 1
    end do
    b(1:n) = a(1:n)
#if BINDING == 3
    call MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_INTEGER, MPI_SUM, comms(c))
#else
    call MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_INTEGER, MPI_SUM, comms(c), ierr)
#endif
    call expect_sum(b, n)
    calls(2) = calls(2) + 3

    ! allgather; in place
    do k = 1, n
      a(k) = rank * 100 + k
    end do
    b = -1
    call MPI_Allgather(a, n, MPI_INTEGER, b, n, MPI_INTEGER, comms(c), ierr)
    call expect_blocks(b)
    b = -1
    b(rank * n + 1:rank * n + n) = a(1:n)
    call MPI_Allgather(MPI_IN_PLACE, n, MPI_INTEGER, b, n, MPI_INTEGER, comms(c), ierr)
    call expect_blocks(b)
    calls(1) = calls(1) + 2

    ! alltoall; in place
    do j = 0, nprocs - 1
      do k = 1, n
        a(j * n + k) = rank * 1000 + j * 10 + k
      end do
    end do
    call MPI_Alltoall(a, n, MPI_INTEGER, b, n, MPI_INTEGER, comms(c), ierr)
    call expect_transposed(b)
    b = a
    call MPI_Alltoall(MPI_IN_PLACE, n, MPI_INTEGER, b, n, MPI_INTEGER, comms(c), ierr)
    call expect_transposed(b)
    calls(3) = calls(3) + 2

    ! bcast from the last rank
    root = nprocs - 1
    do k = 1, n
      a(k) = 0
      if (rank == root) a(k) = 7 * k + root
    end do
    call MPI_Bcast(a, n, MPI_INTEGER, root, comms(c), ierr)
    do k = 1, n
      if (a(k) /= 7 * k + root) bad = bad + 1
    end do
    calls(4) = calls(4) + 1

    ! gather to the last rank; in place at the root
    do k = 1, n
      a(k) = rank * 100 + k
    end do
    b = -1
    call MPI_Gather(a, n, MPI_INTEGER, b, n, MPI_INTEGER, root, comms(c), ierr)
    if (rank == root) call expect_blocks(b)
    b = -1
    if (rank == root) then
      b(rank * n + 1:rank * n + n) = a(1:n)
      call MPI_Gather(MPI_IN_PLACE, n, MPI_INTEGER, b, n, MPI_INTEGER, root, comms(c), ierr)
      call expect_blocks(b)
    else
      call MPI_Gather(a, n, MPI_INTEGER, b, n, MPI_INTEGER, root, comms(c), ierr)
    end if
    calls(5) = calls(5) + 2

    ! gatherv: rank r contributes r + 1 elements; in place at the root
    do j = 1, nprocs
      cnt(j) = j
      dsp(j) = (j - 1) * j / 2
    end do
    do k = 1, rank + 1
      a(k) = rank * 100 + k
    end do
    b = -1
    call MPI_Gatherv(a, rank + 1, MPI_INTEGER, b, cnt, dsp, MPI_INTEGER, root, comms(c), ierr)
    if (rank == root) call expect_triangle(b)
    b = -1
    if (rank == root) then
      b(dsp(rank + 1) + 1:dsp(rank + 1) + rank + 1) = a(1:rank + 1)
      call MPI_Gatherv(MPI_IN_PLACE, rank + 1, MPI_INTEGER, b, cnt, dsp, MPI_INTEGER, &
                       root, comms(c), ierr)
      call expect_triangle(b)
    else
      call MPI_Gatherv(a, rank + 1, MPI_INTEGER, b, cnt, dsp, MPI_INTEGER, root, comms(c), ierr)
    end if
    calls(6) = calls(6) + 2

    ! reduce to rank 0; in place at the root
    do k = 1, n
      a(k) = rank + k
    end do
    b = -1
    call MPI_Reduce(a, b, n, MPI_INTEGER, MPI_SUM, 0, comms(c), ierr)
    if (rank == 0) call expect_sum(b, n)
    if (rank == 0) then
      b(1:n) = a(1:n)
      call MPI_Reduce(MPI_IN_PLACE, b, n, MPI_INTEGER, MPI_SUM, 0, comms(c), ierr)
      call expect_sum(b, n)
    else
      call MPI_Reduce(a, b, n, MPI_INTEGER, MPI_SUM, 0, comms(c), ierr)
    end if
    calls(7) = calls(7) + 2

    ! reduce_scatter_block; in place (the rest of b stays as it was)
    do j = 0, nprocs - 1
      do k = 1, n
        a(j * n + k) = rank + j * 10 + k
      end do
    end do
    b = -1
    call MPI_Reduce_scatter_block(a, b, n, MPI_INTEGER, MPI_SUM, comms(c), ierr)
    call expect_rsb(b)
    b = a
    call MPI_Reduce_scatter_block(MPI_IN_PLACE, b, n, MPI_INTEGER, MPI_SUM, comms(c), ierr)
    call expect_rsb(b)
    do k = n + 1, n * nprocs
      if (b(k) /= a(k)) bad = bad + 1
    end do
    calls(8) = calls(8) + 2

    ! scan; in place
    do k = 1, n
      a(k) = rank + k
    end do
    call MPI_Scan(a, b, n, MPI_INTEGER, MPI_SUM, comms(c), ierr)
    call expect_prefix(b)
    b(1:n) = a(1:n)
    call MPI_Scan(MPI_IN_PLACE, b, n, MPI_INTEGER, MPI_SUM, comms(c), ierr)
    call expect_prefix(b)
    calls(9) = calls(9) + 2

    ! scatter from the last rank; in place at the root
    do j = 0, nprocs - 1
      do k = 1, n
        b(j * n + k) = j * 100 + k
      end do
    end do
    a = -1
    call MPI_Scatter(b, n, MPI_INTEGER, a, n, MPI_INTEGER, root, comms(c), ierr)
    call expect_own(a)
    if (rank == root) then
      call MPI_Scatter(b, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, root, comms(c), ierr)
    else
      a = -1
      call MPI_Scatter(b, n, MPI_INTEGER, a, n, MPI_INTEGER, root, comms(c), ierr)
      call expect_own(a)
    end if
    calls(10) = calls(10) + 2

    ! scatterv: rank r receives r + 1 elements; in place at the root
    do j = 0, nprocs - 1
      do k = 1, j + 1
        b(dsp(j + 1) + k) = j * 100 + k
      end do
    end do
    a = -1
    call MPI_Scatterv(b, cnt, dsp, MPI_INTEGER, a, rank + 1, MPI_INTEGER, root, comms(c), ierr)
    do k = 1, rank + 1
      if (a(k) /= rank * 100 + k) bad = bad + 1
    end do
    if (rank == root) then
      call MPI_Scatterv(b, cnt, dsp, MPI_INTEGER, MPI_IN_PLACE, rank + 1, MPI_INTEGER, &
                        root, comms(c), ierr)
    else
      call MPI_Scatterv(b, cnt, dsp, MPI_INTEGER, a, rank + 1, MPI_INTEGER, root, comms(c), ierr)
    end if
    calls(11) = calls(11) + 2

    ! allgatherv: rank r contributes r + 1 elements; in place
    do j = 1, nprocs
      cnt(j) = j
      dsp(j) = (j - 1) * j / 2
    end do
    do k = 1, rank + 1
      a(k) = rank * 100 + k
    end do
    b = -1
    call MPI_Allgatherv(a, rank + 1, MPI_INTEGER, b, cnt, dsp, MPI_INTEGER, comms(c), ierr)
    call expect_triangle(b)
    b = -1
    b(dsp(rank + 1) + 1:dsp(rank + 1) + rank + 1) = a(1:rank + 1)
    call MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INTEGER, b, cnt, dsp, MPI_INTEGER, comms(c), ierr)
    call expect_triangle(b)
    calls(12) = calls(12) + 2

    ! reduce_scatter: rank r receives r + 1 elements; in place
    do k = 1, nprocs * (nprocs + 1) / 2
      a(k) = rank + k
    end do
    b = -1
    call MPI_Reduce_scatter(a, b, cnt, MPI_INTEGER, MPI_SUM, comms(c), ierr)
    call expect_rs(b)
    b = a
    call MPI_Reduce_scatter(MPI_IN_PLACE, b, cnt, MPI_INTEGER, MPI_SUM, comms(c), ierr)
    call expect_rs(b)
    calls(17) = calls(17) + 2

    ! alltoallv and alltoallw with blocks of n at displacements j * n; in place
    do j = 0, nprocs - 1
      cnt(j + 1) = n
      dsp(j + 1) = j * n
      bdsp(j + 1) = j * n * 4
      tys(j + 1) = MPI_INTEGER
      do k = 1, n
        a(j * n + k) = rank * 1000 + j * 10 + k
      end do
    end do
    b = -1
    call MPI_Alltoallv(a, cnt, dsp, MPI_INTEGER, b, cnt, dsp, MPI_INTEGER, comms(c), ierr)
    call expect_transposed(b)
    b = a
    call MPI_Alltoallv(MPI_IN_PLACE, cnt, dsp, MPI_INTEGER, b, cnt, dsp, MPI_INTEGER, &
                       comms(c), ierr)
    call expect_transposed(b)
    calls(13) = calls(13) + 2
    b = -1
    call MPI_Alltoallw(a, cnt, bdsp, tys, b, cnt, bdsp, tys, comms(c), ierr)
    call expect_transposed(b)
    b = a
    call MPI_Alltoallw(MPI_IN_PLACE, cnt, bdsp, tys, b, cnt, bdsp, tys, comms(c), ierr)
    call expect_transposed(b)
    calls(14) = calls(14) + 2

    ! barrier
#if BINDING == 3
    call MPI_Barrier(comms(c))
#else
    call MPI_Barrier(comms(c), ierr)
#endif
    calls(15) = calls(15) + 1

    ! exscan; in place (rank 0's result is undefined)
    do k = 1, n
      a(k) = rank + k
    end do
    call MPI_Exscan(a, b, n, MPI_INTEGER, MPI_SUM, comms(c), ierr)
    if (rank > 0) call expect_exprefix(b)
    b(1:n) = a(1:n)
    call MPI_Exscan(MPI_IN_PLACE, b, n, MPI_INTEGER, MPI_SUM, comms(c), ierr)
    if (rank > 0) call expect_exprefix(b)
    calls(16) = calls(16) + 2

    deallocate(a, b, cnt, dsp, bdsp, tys)
  end do

  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  calls(2) = calls(2) + 1
  if (rank == 0) then
    print '(a,i0,a)', 'fortran: ', total, ' wrong results'
    print '(a,17(a,i0))', 'fortran calls:', ' allgather=', calls(1), ' allreduce=', calls(2), &
          ' alltoall=', calls(3), ' bcast=', calls(4), ' gather=', calls(5), ' gatherv=', calls(6), &
          ' reduce=', calls(7), ' reduce_scatter_block=', calls(8), ' scan=', calls(9), &
          ' scatter=', calls(10), ' scatterv=', calls(11), ' allgatherv=', calls(12), &
          ' alltoallv=', calls(13), ' alltoallw=', calls(14), ' barrier=', calls(15), &
          ' exscan=', calls(16), ' reduce_scatter=', calls(17)
  end if
  call MPI_Comm_free(comms(2), ierr)
#if BINDING == 3
  call MPI_Finalize()
#else
  call MPI_Finalize(ierr)
#endif
  if (total /= 0) stop 1

contains

  subroutine expect_sum(v, m)
    integer, intent(in) :: v(:), m
    integer :: i
    do i = 1, m
      if (v(i) /= nprocs * (nprocs - 1) / 2 + nprocs * i) bad = bad + 1
    end do
  end subroutine

  subroutine expect_blocks(v)
    integer, intent(in) :: v(:)
    integer :: r, i
    do r = 0, nprocs - 1
      do i = 1, n
        if (v(r * n + i) /= r * 100 + i) bad = bad + 1
      end do
    end do
  end subroutine

  subroutine expect_transposed(v)
    integer, intent(in) :: v(:)
    integer :: r, i
    do r = 0, nprocs - 1
      do i = 1, n
        if (v(r * n + i) /= r * 1000 + rank * 10 + i) bad = bad + 1
      end do
    end do
  end subroutine

  subroutine expect_triangle(v)
    integer, intent(in) :: v(:)
    integer :: r, i
    do r = 0, nprocs - 1
      do i = 1, r + 1
        if (v(r * (r + 1) / 2 + i) /= r * 100 + i) bad = bad + 1
      end do
    end do
  end subroutine

  subroutine expect_rsb(v)
    integer, intent(in) :: v(:)
    integer :: i
    do i = 1, n
      if (v(i) /= nprocs * (nprocs - 1) / 2 + nprocs * (rank * 10 + i)) bad = bad + 1
    end do
  end subroutine

  subroutine expect_prefix(v)
    integer, intent(in) :: v(:)
    integer :: i
    do i = 1, n
      if (v(i) /= rank * (rank + 1) / 2 + (rank + 1) * i) bad = bad + 1
    end do
  end subroutine

  subroutine expect_rs(v)
    integer, intent(in) :: v(:)
    integer :: i
    do i = 1, rank + 1
      if (v(i) /= nprocs * (nprocs - 1) / 2 + nprocs * (rank * (rank + 1) / 2 + i)) bad = bad + 1
    end do
  end subroutine

  subroutine expect_exprefix(v)
    integer, intent(in) :: v(:)
    integer :: i
    do i = 1, n
      if (v(i) /= rank * (rank - 1) / 2 + rank * i) bad = bad + 1
    end do
  end subroutine

  subroutine expect_own(v)
    integer, intent(in) :: v(:)
    integer :: i
    do i = 1, n
      if (v(i) /= rank * 100 + i) bad = bad + 1
    end do
  end subroutine

end program
