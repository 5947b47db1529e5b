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
NP=2
LAUNCHES=30
LIBRARIES=openmpi,mpich
usage() { echo "usage: scripts/init_overhead.sh [--np N] [--launches N] [--libraries openmpi,mpich]" >&2; exit 2; }
source scripts/lib/launch.sh
overhead_options "$@"
scripts/install-deps.sh
bazel build -c opt //bench:colltune-init-time //bench:colltune-init-time-mpich \
  //shim:libcolltune.so //shim:libcolltune-mpich.so //cli:colltune //daemon:colltuned \
  2>&1 | tail -n 1
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
COLLTUNE=$BIN/cli/colltune
COLLTUNED=$BIN/daemon/colltuned
source scripts/lib/daemon.sh init-overhead
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
  local lib=$1 mode=$2 prog shim env=()
  if [ "$lib" = openmpi ]; then
    prog=$BIN/bench/colltune-init-time shim=$BIN/shim/libcolltune.so
  else
    prog=$BIN/bench/colltune-init-time-mpich shim=$BIN/shim/libcolltune-mpich.so
  fi
  case "$mode" in
    native) ;;
    shim) env=(LD_PRELOAD="$shim") ;;
    daemon) env=(LD_PRELOAD="$shim" COLLTUNE_SERVER="$SERVER") ;;
    agent) env=(LD_PRELOAD="$shim" COLLTUNE_SERVER="dns:127.0.0.1:$TCP_PORT") ;;
  esac
  launch "$lib" "$NP" "$prog" ${env[@]+"${env[@]}"} | awk '/^init_ms/ {print $2}'
}

IFS=, read -r -a libs <<<"$LIBRARIES"
for lib in "${libs[@]}"; do
  modes=(native shim daemon agent)
  interleave "$lib" "${modes[@]}"
  echo "MPI_Init, $lib, np $NP, $LAUNCHES launches per mode (slowest rank's time):"
  summary $(for m in "${modes[@]}"; do echo "$WORK/$lib.$m"; done)
done

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
