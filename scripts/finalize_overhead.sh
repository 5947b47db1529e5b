#!/usr/bin/env bash
# What the shim adds to MPI_Finalize: rank 0's MPI_Finalize time
# (bench/finalize_time.c, after 5000 allreduce calls) over many launches,
# interleaved round by round so that machine noise hits every mode alike:
#   native        no shim
#   quiet         the shim and a daemon, reporting off (COLLTUNE_REPORT=0)
#   report        the shim and a daemon on a unix socket: rank 0 writes the
#                 job's report and sends it with its own gRPC call
#   down          reporting on, the daemon's socket gone: the report stays
#                 spooled for the next job
# It prints each mode's median and 90th percentile and the median added over
# native and over quiet, for Open MPI and MPICH.
#
#   scripts/finalize_overhead.sh [--np 2] [--launches 20] [--libraries openmpi,mpich]
set -euo pipefail
cd "$(dirname "$0")/.."
NP=2
LAUNCHES=20
LIBRARIES=openmpi,mpich
usage() { echo "usage: scripts/finalize_overhead.sh [--np N] [--launches N] [--libraries openmpi,mpich]" >&2; exit 2; }
source scripts/lib/launch.sh
overhead_options "$@"
scripts/install-deps.sh
bazel build -c opt //bench:colltune-finalize-time //bench:colltune-finalize-time-mpich \
  //shim:libcolltune.so //shim:libcolltune-mpich.so //cli:colltune //daemon:colltuned \
  2>&1 | tail -n 1
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
COLLTUNE=$BIN/cli/colltune
COLLTUNED=$BIN/daemon/colltuned
source scripts/lib/daemon.sh finalize-overhead
export COLLTUNE_CACHE_DIR="$WORK/cache"
unset COLLTUNE_SERVER COLLTUNE_TABLE COLLTUNE_FORCE COLLTUNE_REPORT

run() {  # LIBRARY MODE -> prints finalize_ms
  local lib=$1 mode=$2 prog shim env=()
  if [ "$lib" = openmpi ]; then
    prog=$BIN/bench/colltune-finalize-time shim=$BIN/shim/libcolltune.so
  else
    prog=$BIN/bench/colltune-finalize-time-mpich shim=$BIN/shim/libcolltune-mpich.so
  fi
  case "$mode" in
    native) ;;
    quiet) env=(LD_PRELOAD="$shim" COLLTUNE_SERVER="$SERVER" COLLTUNE_REPORT=0) ;;
    report) env=(LD_PRELOAD="$shim" COLLTUNE_SERVER="$SERVER" COLLTUNE_REPORT=1) ;;
    down) env=(LD_PRELOAD="$shim" COLLTUNE_SERVER="unix:$WORK/gone.sock" COLLTUNE_REPORT=1) ;;
  esac
  launch "$lib" "$NP" "$prog" ${env[@]+"${env[@]}"} | awk '/^finalize_ms/ {print $2}'
}

IFS=, read -r -a libs <<<"$LIBRARIES"
for lib in "${libs[@]}"; do
  modes=(native quiet report down)
  interleave "$lib" "${modes[@]}"
  echo "MPI_Finalize, $lib, np $NP, $LAUNCHES launches per mode (rank 0's time):"
  summary --over quiet:report,down $(for m in "${modes[@]}"; do echo "$WORK/$lib.$m"; done)
done
sent=$("$COLLTUNE" --server "$SERVER" jobs --profile 1 2>/dev/null | head -1 || true)
echo "reports the daemon stored: $sent"
