#!/usr/bin/env bash
# What colltuned sustains on this machine, in one run (bench/daemon_load.cc):
# 200 clients fetching the table the way MPI_Init does (p50/p99 latency,
# target p99 < 2 ms on loopback), first paced at --rate fetches per second
# (default 1000: independent jobs starting at random times, more than a
# Slurm controller starts), then all at once back to back (a closed loop,
# whose latency is 200 / throughput), then job reports ingested by
# several senders as fast as the daemon takes them while the web view is
# read (target >= 10,000 reports per minute), then the paced fetches again
# while reports arrive at --report-rate a minute (default 10,000). The daemon runs on a database populated first the way a site's is
# after months (--populate-measurements campaign measurements, default
# 500000, and --populate-reports job reports, default 1000; 0 and 0: a fresh
# one): gRPC on a unix socket, the web view on loopback TCP. Exits non-zero
# when a target does not hold.
#
#   scripts/daemon_load.sh [--clients 200] [--fetches 20] [--rate 1000] [--reports 2000] [--reporters 4]
#                          [--report-rate 10000] [--populate-measurements 500000] [--populate-reports 1000]
set -euo pipefail
cd "$(dirname "$0")/.."
ARGS=()
RATE=1000
POPULATE_MEASUREMENTS=500000
POPULATE_REPORTS=1000
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) RATE=$2; shift 2 ;;
    --clients|--fetches|--reports|--reporters|--report-rate) ARGS+=("$1" "$2"); shift 2 ;;
    --populate-measurements) POPULATE_MEASUREMENTS=$2; shift 2 ;;
    --populate-reports) POPULATE_REPORTS=$2; shift 2 ;;
    *) echo "usage: scripts/daemon_load.sh [--clients 200] [--fetches 20] [--rate 1000] [--reports 2000] [--reporters 4] [--report-rate 10000] [--populate-measurements 500000] [--populate-reports 1000]" >&2; exit 2 ;;
  esac
done
scripts/install-deps.sh
source scripts/lib/options.sh
build_opt //bench:colltune-daemon-load //daemon:colltuned //cli:colltune
COLLTUNE=$BIN/cli/colltune
COLLTUNED=$BIN/daemon/colltuned
HTTP_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
COLLTUNED_ARGS=(--max-reports-per-uid-per-minute 0 --max-uploads-per-uid-per-minute 0
                --http "127.0.0.1:$HTTP_PORT" --web-dir web)
source scripts/lib/daemon.sh load
echo "colltuned: unix socket, $(nproc) cores"
rc=0
"$BIN/bench/colltune-daemon-load" --server "$SERVER" --http "127.0.0.1:$HTTP_PORT" --rate "$RATE" \
  --populate-measurements "$POPULATE_MEASUREMENTS" --populate-reports "$POPULATE_REPORTS" --targets \
  ${ARGS[@]+"${ARGS[@]}"} || rc=$?
echo "database: $(du -h "$WORK/colltune.db" | cut -f1), $(sqlite3 "$WORK/colltune.db" 'SELECT COUNT(*) FROM measurements') measurements, $(sqlite3 "$WORK/colltune.db" 'SELECT COUNT(*) FROM job_reports') job reports"
exit $rc
