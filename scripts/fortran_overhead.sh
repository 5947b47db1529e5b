#!/usr/bin/env bash
# What a Fortran call through the shim costs, next to a C call through it
# (Open MPI, whose Fortran bindings the shim wraps itself; MPICH's reach the C
# entry points). bench/fortran_loop.F90 alternates blocks of 8-byte
# MPI_ALLREDUCE calls through the shim's Fortran entry point and straight to
# the library's PMPI_ALLREDUCE, and prints the ratio of their medians, in one
# job; colltune-loop (bench/loop.c) does the same for C. Then the
# instructions each path adds per call, counted by callgrind (deterministic)
# in a 1-process job.
#
#   scripts/fortran_overhead.sh [--rounds 5]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/loop_setup.sh fortran_overhead "$@"
mpif90.openmpi -O2 bench/fortran_loop.F90 -o "$WORK/fortran_loop"

# name|mpirun options
CONFIGS=(
  "no shim|"
  "shim, nothing to do|-x LD_PRELOAD=$SHIM"
  "shim, sampling 1/128|-x LD_PRELOAD=$SHIM -x COLLTUNE_SPOOL_DIR=$WORK/spool -x COLLTUNE_EXPLORE=0"
)

median_ratio() {  # median_ratio OPTS PROGRAM ARGS...
  local opts=$1 ratios="" line
  shift
  for _ in $(seq 1 "$ROUNDS"); do
    # shellcheck disable=SC2086
    line=$(mpirun.openmpi -np 2 $opts "$@" </dev/null 2>/dev/null | tail -n 1)
    ratios+="$(awk '{ print $NF }' <<<"$line") "
  done
  python3 -c "import statistics,sys; r=[float(x) for x in sys.argv[1].split()]; print(f'{statistics.median(r):.4f} (ratios {\" \".join(f\"{x:.3f}\" for x in r)})')" "$ratios"
}

echo "== 8-byte MPI_Allreduce, 2 processes: time through the shim / straight to the library"
echo "   (median of $ROUNDS jobs; each job's ratio is measured in that job)"
for c in "${CONFIGS[@]}"; do
  IFS='|' read -r name opts <<<"$c"
  printf '   %-24s C       %s\n' "$name" "$(median_ratio "$opts" "$BIN/bench/colltune-loop" --bytes 8 --block 1000 --blocks 200)"
  printf '   %-24s Fortran %s\n' "" "$(median_ratio "$opts" "$WORK/fortran_loop" 1000)"
done

echo "== instructions per MPI_Allreduce call beyond the library's (callgrind, 1 process, 8 B)"
total_ir() {  # total_ir [VAR=VALUE...] PROGRAM... : a 1-process job's instructions
  local env=()
  while [[ $1 == *=* ]]; do env+=("$1"); shift; done
  env "${env[@]}" valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$@" \
    >/dev/null 2>"$WORK/cg.err"
  awk '/^summary:/ { print $2 }' "$WORK/cg.out"
}
# Each program makes equal numbers of calls through both paths; running it
# with more calls and subtracting gives instructions per pair of calls.
per_pair() {  # per_pair ENV... -- PROGRAM_SMALL... -- PROGRAM_LARGE... (20000 more calls)
  local env=() small=() large=()
  while [ "$1" != "--" ]; do env+=("$1"); shift; done
  shift
  while [ "$1" != "--" ]; do small+=("$1"); shift; done
  shift
  large=("$@")
  local a b
  a=$(total_ir "${env[@]}" "${small[@]}")
  b=$(total_ir "${env[@]}" "${large[@]}")
  python3 -c "print(2 * ($b - $a) / 20000)"
}
c_args() { echo "$BIN/bench/colltune-loop --bytes 8 --blocks 10 --block $1"; }
for lang in C Fortran; do
  if [ "$lang" = C ]; then
    small=($(c_args 1000)); large=($(c_args 2000))
  else
    small=("$WORK/fortran_loop" 50); large=("$WORK/fortran_loop" 100)  # 200 blocks
  fi
  base=$(per_pair -- "${small[@]}" -- "${large[@]}")
  printf '   %-8s library %.1f instructions/call' "$lang" "$base"
  for c in "shim, nothing to do|LD_PRELOAD=$SHIM" \
           "sampling 1/128|LD_PRELOAD=$SHIM COLLTUNE_SPOOL_DIR=$WORK/spool COLLTUNE_EXPLORE=0"; do
    IFS='|' read -r name envs <<<"$c"
    # shellcheck disable=SC2086
    printf ', %s %+.1f' "$name" "$(python3 -c "print($(per_pair $envs -- "${small[@]}" -- "${large[@]}") - $base)")"
  done
  echo
done
