#!/usr/bin/env bash
# What the shim adds to MPI_Init, the one cost every job pays: the slowest
# rank's MPI_Init time (bench/init_time.c) over many launches, interleaved
# round by round so that machine noise hits every mode alike:
#   native        no shim
#   shim          the shim, no daemon configured
#   daemon        the shim and a daemon (unix socket, empty database): rank 0
#                 fetches the table with its own gRPC call
#   agent         the same through the agent program (a target form only
#                 gRPC's resolver knows, dns:HOST:PORT on loopback TCP): how
#                 every job fetched its table before
# It prints each mode's median and 90th percentile and the median added over
# native, for Open MPI and MPICH, and `colltune table` end to end.
#
#   scripts/init_overhead.sh [--np 2] [--launches 30] [--libraries openmpi,mpich]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/launch.sh
overhead_setup init_overhead init-time 30 "$@"
# A second daemon on loopback TCP for the agent mode.
TCP_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$COLLTUNED" --db "$WORK/tcp.db" --listen "127.0.0.1:$TCP_PORT" --insecure-accept-anonymous-uploads 2>"$WORK/tcp.log" &
TCP_DAEMON=$!
trap 'kill $DAEMON $TCP_DAEMON 2>/dev/null; wait $DAEMON $TCP_DAEMON 2>/dev/null; rm -rf "$WORK"' EXIT
# No cache: every launch asks the daemon (a cached table would hide nothing
# here, the request is made before the cache is read).
export COLLTUNE_CACHE_DIR="$WORK/cache" COLLTUNE_REPORT=0
unset COLLTUNE_SERVER COLLTUNE_TABLE COLLTUNE_FORCE

run() {  # LIBRARY MODE -> prints init_ms
  local lib=$1 mode=$2 env=()
  pick "$lib"
  case "$mode" in
    native) ;;
    shim) env=(LD_PRELOAD="$SHIM") ;;
    daemon) env=(LD_PRELOAD="$SHIM" COLLTUNE_SERVER="$SERVER") ;;
    agent) env=(LD_PRELOAD="$SHIM" COLLTUNE_SERVER="dns:127.0.0.1:$TCP_PORT") ;;
  esac
  launch "$lib" "$NP" "$PROG" ${env[@]+"${env[@]}"} | awk '/^init_ms/ {print $2}'
}

compare_modes MPI_Init "slowest rank's time" native shim daemon agent

# The agent alone: `colltune table` end to end, as a job's rank 0 runs it.
: >"$WORK/agent.table"
for _ in $(seq "$LAUNCHES"); do
  s=$(date +%s%N)
  "$COLLTUNE" table --format=shim --server="$SERVER" --library="Open MPI" \
    --library-version=4.1.4 --comm-size="$NP" --nodes=1 --ppn="$NP" >/dev/null
  awk -v a="$s" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f\n", (b - a) / 1e6 }' >>"$WORK/agent.table"
done
echo "colltune table end to end:"
summary "$WORK/agent.table"
