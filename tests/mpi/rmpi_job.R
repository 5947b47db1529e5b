# An R MPI job (Debian's r-cran-rmpi, built for Open MPI): R loads Rmpi and,
# through it, libmpi by dlopen with local symbols, after the preloaded shim.
# Rmpi names its own C functions mpi_allreduce, mpi_finalize, ..., which a
# shim must not take over. 50 checked allreduces; rank 0 prints one line.
library(Rmpi)
rank <- mpi.comm.rank(0)
size <- mpi.comm.size(0)
bad <- 0
for (i in 1:50) {
  y <- mpi.allreduce(as.double(c(rank + 1, i)), type = 2, op = "sum", comm = 0)
  if (y[1] != size * (size + 1) / 2 || y[2] != i * size) bad <- bad + 1
}
total <- mpi.allreduce(as.integer(bad), type = 1, op = "sum", comm = 0)
if (rank == 0) cat(sprintf("rmpi: %d processes, %d wrong results\n", size, total))
invisible(mpi.finalize())
