#!/usr/bin/env bash
# The shim lives inside other people's jobs: it exports the MPI entry points
# and nothing else, needs nothing but libc, and references no MPI symbol at
# all: it looks the library's entry points up when the job enters MPI
# (shim/mpi/pmpi.h), so preloading it into programs without MPI, like
# mpirun, is harmless, and MPI loaded later by dlopen is found too.
#
# Args: libcolltune.so libcolltune-mpich.so
source tests/lib/testlib.sh

for lib in "$@"; do
  lib=$(abspath "$lib")
  name=$(basename "$lib")
  # Global definitions only: the linker may list LOCAL symbols (a TLS
  # variable) in .dynsym, which no other object can see.
  exported=$(nm -D -g --defined-only "$lib" | awk '{ print $3 }')
  # (MPIX_, mpix_: Open MPI 4.1's persistent collectives, its pcollreq
  # extension's names.)
  bad=$(grep -Ev '^(MPI_|mpi_|MPIX_[A-Z][a-z_]*_init$|mpix_[a-z_]*_init(_|__|_f08_)$|MPIX_[A-Z_]*_INIT$)' <<<"$exported")
  [ -z "$bad" ] && pass "$name exports only MPI entry points (C and Fortran)" || fail "$name exports only MPI entry points (C and Fortran)" "$bad"
  bad=""
  for sym in MPI_Init MPI_Init_thread MPI_Finalize MPI_Allgather MPI_Allreduce \
             MPI_Alltoall MPI_Bcast MPI_Gather MPI_Gatherv MPI_Reduce \
             MPI_Reduce_scatter_block MPI_Scan MPI_Scatter MPI_Scatterv; do
    grep -qx "$sym" <<<"$exported" || bad+=" $sym"
  done
  [ -z "$bad" ] && pass "$name wraps every contract entry point" || fail "$name wraps every contract entry point" "missing:$bad"
  # Fortran: mpi_f08's init and finalize call PMPI_* directly in both
  # libraries; Open MPI's bindings do so for everything, in every mangling.
  fortran=(mpi_init_f08_ mpi_init_thread_f08_ mpi_finalize_f08_)
  if [[ $name != *mpich* ]]; then
    for f in init init_thread finalize allgather allreduce alltoall bcast gather gatherv \
             reduce reduce_scatter_block scan scatter scatterv; do
      fortran+=("mpi_${f}_" "mpi_${f}__" "MPI_${f^^}")
    done
    for f in allgather allreduce alltoall bcast gather gatherv reduce reduce_scatter_block \
             scan scatter scatterv; do
      fortran+=("mpi_${f}_f08_")
    done
  else
    # MPICH's mpif.h and `use mpi` routines call the C entry points: wrapping
    # them too would count every call twice.
    if grep -qx mpi_allreduce_ <<<"$exported"; then
      fail "$name leaves MPICH's mpif.h routines to the C entry points" "mpi_allreduce_ is wrapped"
    else
      pass "$name leaves MPICH's mpif.h routines to the C entry points"
    fi
  fi
  # Never the bare lower-case names: C code uses them for its own functions
  # (R's Rmpi defines mpi_allreduce, mpi_finalize, ...).
  bare=$(grep -Ex 'mpi_[a-z_]*[a-z]' <<<"$exported" | grep -v '_f08$')
  [ -z "$bare" ] && pass "$name exports no bare lower-case mpi_* name" ||
    fail "$name exports no bare lower-case mpi_* name" "$bare"
  missing=""
  for sym in "${fortran[@]}"; do grep -qx "$sym" <<<"$exported" || missing+=" $sym"; done
  [ -z "$missing" ] && pass "$name wraps the Fortran entry points its library needs" || fail "$name wraps the Fortran entry points its library needs" "missing:$missing"
  # Undefined references: versioned ones from the C library only; no MPI
  # symbol, not even a weak one (bound to 0 when MPI comes by dlopen).
  strong=$(nm -D --undefined-only "$lib" | awk '$1 == "U" && $2 !~ /@/ { print $2 }')
  [ -z "$strong" ] && pass "$name has no unversioned undefined reference" || fail "$name has no unversioned undefined reference" "$strong"
  mpirefs=$(nm -D --undefined-only "$lib" | awk '{ print $NF }' | grep -Ei '^(p?mpi_|ompi_|mpir_)')
  [ -z "$mpirefs" ] && pass "$name references no MPI symbol" || fail "$name references no MPI symbol" "$mpirefs"
  needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -Ev '^(libc|libm|ld-linux.*)\.so')
  [ -z "$needed" ] && pass "$name needs only libc" || fail "$name needs only libc" "$needed"
  out=$(LD_PRELOAD="$lib" /bin/true 2>&1) && pass "$name preloads into a program without MPI" || fail "$name preloads into a program without MPI" "$out"
done
finish
