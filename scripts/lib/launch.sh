# Shared by the overhead benchmarks: runs an MPI program under either
# library with environment variables passed to every rank, stdin from
# /dev/null.
#   launch openmpi|mpich NP PROGRAM [NAME=VALUE...]
launch() {
  local lib=$1 np=$2 prog=$3 x=()
  shift 3
  if [ "$lib" = openmpi ]; then
    for e in "$@"; do x+=(-x "$e"); done
    mpirun.openmpi -np "$np" "${x[@]}" "$prog" </dev/null
  else
    for e in "$@"; do x+=(-genv "${e%%=*}" "${e#*=}"); done
    mpirun.mpich -np "$np" "${x[@]}" "$prog" </dev/null
  fi
}
