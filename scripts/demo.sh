#!/usr/bin/env bash
# The main job, end to end on this machine: install what is missing, build,
# start colltuned on a temporary database, run a tuning campaign with mpirun
# on 4 processes, print the decision table, then run an ordinary MPI program
# with and without the shim and print both timings.
#
#   scripts/demo.sh [--np 4] [--launches 3] [--nrep 30]
set -euo pipefail
cd "$(dirname "$0")/.."
NP=4
LAUNCHES=3
NREP=30
while [ $# -gt 0 ]; do
  case "$1" in
    --np) NP=$2; shift 2 ;;
    --launches) LAUNCHES=$2; shift 2 ;;
    --nrep) NREP=$2; shift 2 ;;
    *) echo "usage: scripts/demo.sh [--np N] [--launches N] [--nrep N]" >&2; exit 2 ;;
  esac
done

scripts/install-deps.sh
echo "== building"
bazel build -c opt //daemon:colltuned //cli:colltune //bench:colltune-bench \
  //shim:libcolltune.so //examples:collective_mix 2>&1 | tail -n 2
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
COLLTUNED=$BIN/daemon/colltuned
COLLTUNE=$BIN/cli/colltune
BENCH=$BIN/bench/colltune-bench
SHIM=$BIN/shim/libcolltune.so
APP=$BIN/examples/collective_mix

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
WORK=$(mktemp -d /tmp/colltune-demo.XXXXXX)
SERVER="unix:$WORK/colltuned.sock"
"$COLLTUNED" --db "$WORK/colltune.db" --listen "$SERVER" 2>"$WORK/colltuned.log" &
DAEMON=$!
trap 'kill $DAEMON 2>/dev/null; wait $DAEMON 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do
  "$COLLTUNE" --server "$SERVER" profiles >/dev/null 2>&1 && break
  sleep 0.1
done
echo "== colltuned on $SERVER, database $WORK/colltune.db"

echo "== tuning campaign: $LAUNCHES launches of colltune-bench on $NP processes"
start=$(date +%s)
for launch in $(seq 0 $((LAUNCHES - 1))); do
  mpirun.openmpi -np "$NP" "$BENCH" --server "$SERVER" --campaign demo \
    --launch "$launch" --nrep "$NREP" --quiet > "$WORK/bench-$launch.txt"
  echo "   launch $launch done"
done
echo "   campaign took $(( $(date +%s) - start )) s"

echo "== decision table for $NP processes"
"$COLLTUNE" --server "$SERVER" table --comm-size "$NP"

echo "== the same MPI program without and with the shim"
# For every range where a mock-up replaced the default, one size inside it
# that collective_mix can run.
"$COLLTUNE" --server "$SERVER" table --comm-size "$NP" --json > "$WORK/table.json"
mapfile -t POINTS < <(python3 - "$WORK/table.json" <<'PY'
import json, sys
table = json.load(open(sys.argv[1]))
runnable = {"allreduce", "reduce", "bcast", "gather", "scatter", "allgather"}
for r in (table.get("section") or {}).get("rules", []):
    if r["algorithm"] == "default" or r["collective"] not in runnable:
        continue
    lo, hi = max(r["min_bytes"], 1), r["max_bytes"]
    # The smallest power of two in the range, else its lower end; at most 1 MiB.
    size = 1
    while size < lo:
        size *= 2
    if hi is not None and size > hi:
        size = lo
    if size <= (1 << 20) and (hi is None or size <= hi):
        print(r["collective"], size, r["algorithm"])
PY
)
if [ "${#POINTS[@]}" -eq 0 ]; then
  echo "   no mock-up beat the library here by the 10% margin: nothing to tune."
  exit 0
fi
printf '   %-10s %9s  %-42s %12s %12s %8s\n' collective bytes "tuned algorithm" "default_us" "tuned_us" speedup
for point in "${POINTS[@]}"; do
  read -r coll bytes alg <<<"$point"
  plain=$(mpirun.openmpi -np "$NP" "$APP" --collectives "$coll" --bytes "$bytes" --iters 300)
  tuned=$(mpirun.openmpi -np "$NP" -x LD_PRELOAD="$SHIM" -x COLLTUNE_SERVER="$SERVER" \
          -x COLLTUNE_AGENT="$COLLTUNE" -x COLLTUNE_CACHE_DIR="$WORK/cache" \
          "$APP" --collectives "$coll" --bytes "$bytes" --iters 300)
  t0=$(awk -v c="$coll" '$1 == c { print $4 }' <<<"$plain")
  t1=$(awk -v c="$coll" '$1 == c { print $4 }' <<<"$tuned")
  grep -q verified <<<"$plain$tuned" || { echo "results not verified"; exit 1; }
  printf '   %-10s %9s  %-42s %12s %12s %7.2fx\n' "$coll" "$bytes" "$alg" "$t0" "$t1" \
    "$(python3 -c "print($t0 / $t1)")"
done
echo "== done (results of every run verified by the program itself)"
