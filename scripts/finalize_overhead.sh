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
source scripts/lib/launch.sh
overhead_setup finalize_overhead finalize-time 20 "$@"
export COLLTUNE_CACHE_DIR="$WORK/cache"
unset COLLTUNE_SERVER COLLTUNE_TABLE COLLTUNE_FORCE COLLTUNE_REPORT

run() {  # LIBRARY MODE -> prints finalize_ms
  local lib=$1 mode=$2 env=()
  pick "$lib"
  case "$mode" in
    native) ;;
    quiet) env=(LD_PRELOAD="$SHIM" COLLTUNE_SERVER="$SERVER" COLLTUNE_REPORT=0) ;;
    report) env=(LD_PRELOAD="$SHIM" COLLTUNE_SERVER="$SERVER" COLLTUNE_REPORT=1) ;;
    down) env=(LD_PRELOAD="$SHIM" COLLTUNE_SERVER="unix:$WORK/gone.sock" COLLTUNE_REPORT=1) ;;
  esac
  launch "$lib" "$NP" "$PROG" ${env[@]+"${env[@]}"} | awk '/^finalize_ms/ {print $2}'
}

compare_modes MPI_Finalize "rank 0's time" --over quiet:report,down native quiet report down
sent=$("$COLLTUNE" --server "$SERVER" jobs --profile 1 2>/dev/null | head -1 || true)
echo "reports the daemon stored: $sent"
