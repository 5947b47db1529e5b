#!/usr/bin/env bash
# What online measurement costs a job. Each job measures it in one run:
# colltune-loop alternates blocks of calls through the shim (MPI_X) and
# straight to the library (PMPI_X) and prints the ratio of their medians
# (bench/loop.c). Configurations: no shim (the method's noise floor), the
# shim disabled (COLLTUNE_DISABLE=1), the shim with nothing to do, sampling
# only (1 call in 128 timed, the default), and sampling with exploration (the
# default 1% budget). Workloads: an 8-byte MPI_Allreduce loop at 2
# processes, and a mix of six collectives at 4 KiB on 4 processes. Each
# configuration runs several times; the median ratio is printed. Then the
# instructions per call of each path, counted by callgrind (deterministic)
# in a 1-process job.
#
#   scripts/online_overhead.sh [--rounds 5]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/loop_setup.sh online_overhead "$@"

# name|mpirun options
CONFIGS=(
  "no shim|"
  "shim, COLLTUNE_DISABLE=1|-x LD_PRELOAD=$SHIM -x COLLTUNE_DISABLE=1"
  "shim, nothing to do|-x LD_PRELOAD=$SHIM"
  "shim, sampling 1/128|-x LD_PRELOAD=$SHIM -x COLLTUNE_SPOOL_DIR=$WORK/spool -x COLLTUNE_EXPLORE=0"
  "shim, sampling + exploring 1%|-x LD_PRELOAD=$SHIM -x COLLTUNE_SPOOL_DIR=$WORK/spool -x COLLTUNE_EXPLORE_MIN_CALLS=1000"
)

measure() {  # measure TITLE NP ARGS...: the median in-run ratio per configuration
  local title=$1 np=$2
  shift 2
  echo "== $title: time through the shim / time straight to the library"
  echo "   (median of $ROUNDS jobs; each job's ratio is measured in that job)"
  for c in "${!CONFIGS[@]}"; do
    IFS='|' read -r name opts <<<"${CONFIGS[$c]}"
    local ratios="" through=""
    for round in $(seq 1 "$ROUNDS"); do
      # shellcheck disable=SC2086
      line=$(mpirun.openmpi -np "$np" $opts "$BIN/bench/colltune-loop" "$@" </dev/null 2>/dev/null)
      ratios+="$(awk '{ print $NF }' <<<"$line") "
      through+="$(grep -o 'shim) [0-9.]*' <<<"$line" | awk '{ print $2 }') "
    done
    python3 - "$name" "$ratios" "$through" <<'PY'
import statistics, sys
name, ratios, through = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
print(f"   {name:<32} ratio {statistics.median(ratios):.4f}  ({statistics.median(through):.4f} us/call; "
      f"ratios {' '.join(f'{r:.3f}' for r in ratios)})")
PY
  done
}

measure "8-byte MPI_Allreduce, 2 processes" 2 --bytes 8 --block 1000 --blocks 300
measure "mix of 6 collectives at 4 KiB, 4 processes" 4 --bytes 4096 --mix --block 120 --blocks 200

echo "== instructions per MPI_Allreduce call beyond the library's (callgrind, 1 process, 8 B)"
LOOP_ARGS=(--bytes 8)  # the workload callgrind counts
ir() {  # ir BLOCK ENV...: total instructions of a 1-process job
  local block=$1
  shift
  env "$@" valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
    "$BIN/bench/colltune-loop" "${LOOP_ARGS[@]}" --blocks 10 --block "$block" \
    >/dev/null 2>"$WORK/cg.err"
  awk '/^summary:/ { print $2 }' "$WORK/cg.out"
}
# 20000 more calls, half of them through MPI_: instructions per MPI_ call
# beyond the library's own.
per_call() {
  local a b
  a=$(ir 1000 "$@")
  b=$(ir 2000 "$@")
  python3 -c "print(2 * ($b - $a) / 20000)"
}
base=$(per_call)
printf '   %-32s %6.1f instructions/call (the library)\n' "no shim" "$base"
extra() {  # extra NAME ENV...
  local name=$1
  shift
  printf '   %-32s %+6.1f\n' "$name" "$(python3 -c "print($(per_call "$@") - $base)")"
}
extra "shim, COLLTUNE_DISABLE=1" LD_PRELOAD="$SHIM" COLLTUNE_DISABLE=1
extra "shim, nothing to do" LD_PRELOAD="$SHIM"
extra "shim, counting only (no events)" LD_PRELOAD="$SHIM" COLLTUNE_SPOOL_DIR="$WORK/spool" \
  COLLTUNE_SAMPLE=1/1000000 COLLTUNE_EXPLORE=0
extra "shim, sampling 1/128" LD_PRELOAD="$SHIM" COLLTUNE_SPOOL_DIR="$WORK/spool" COLLTUNE_EXPLORE=0
extra "shim, sampling + exploring 1%" LD_PRELOAD="$SHIM" COLLTUNE_SPOOL_DIR="$WORK/spool"

echo "== instructions per MPI_Barrier call beyond the library's (callgrind, 1 process; target <= 30 passing through)"
LOOP_ARGS=(--barrier)
base=$(per_call)
printf '   %-32s %6.1f instructions/call (the library)\n' "no shim" "$base"
extra "shim, nothing to do" LD_PRELOAD="$SHIM"
extra "shim, sampling 1/128" LD_PRELOAD="$SHIM" COLLTUNE_SPOOL_DIR="$WORK/spool" COLLTUNE_EXPLORE=0
