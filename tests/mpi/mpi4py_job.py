"""A Python MPI job (mpi4py, Debian's python3-mpi4py): Python loads libmpi by
dlopen with RTLD_LOCAL, after the preloaded shim. Prints one line per check
on rank 0 and exits non-zero on a wrong result."""
import array
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
bad = 0
for i in range(50):
    x = array.array('d', [rank + 1.0, float(i), 1.0])
    y = array.array('d', [0.0] * 3)
    comm.Allreduce(x, y, op=MPI.SUM)
    if list(y) != [size * (size + 1) / 2, float(i * size), float(size)]:
        bad += 1
    b = array.array('i', [1000 + i if rank == 0 else -1])
    comm.Bcast(b, root=0)
    if b[0] != 1000 + i:
        bad += 1
    g = comm.allgather(rank)  # pickled objects go through MPI_Allgather too
    if g != list(range(size)):
        bad += 1
total = comm.allreduce(bad, op=MPI.SUM)
if rank == 0:
    print("mpi4py: %d processes, %d wrong results" % (size, total))
sys.exit(0 if total == 0 else 1)
