#!/usr/bin/env bash
# The main job, end to end on this machine: install what is missing, build,
# start colltuned on a temporary database, run a tuning campaign (colltune
# campaign: 5 mpirun launches of colltune-bench, NREP-estimated repetitions)
# on 4 processes, print the decision table and the violations (guideline and selection),
# then run an ordinary MPI program with and without the shim and print both
# timings.
#
#   scripts/demo.sh [--np 4] [--launches 5] [--nrep auto|N] [--evaluate]
set -euo pipefail
cd "$(dirname "$0")/.."
NP=4
LAUNCHES=5
NREP=auto
EVALUATE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --np) NP=$2; shift 2 ;;
    --launches) LAUNCHES=$2; shift 2 ;;
    --nrep) NREP=$2; shift 2 ;;
    --evaluate) EVALUATE=1; shift ;;
    *) echo "usage: scripts/demo.sh [--np N] [--launches N] [--nrep auto|N] [--evaluate]" >&2; exit 2 ;;
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

source scripts/lib/daemon.sh demo
echo "== colltuned on $SERVER, database $WORK/colltune.db"

echo "== tuning campaign: $LAUNCHES launches of colltune-bench on $NP processes"
"$COLLTUNE" --server "$SERVER" campaign --np "$NP" --launches "$LAUNCHES" \
  --name demo --bench "$BENCH" -- --nrep "$NREP" --quiet </dev/null 2>&1 |
  { grep -v "^colltune: launch [0-9]*/[0-9]*: " || true; }

echo "== decision table for $NP processes"
"$COLLTUNE" --server "$SERVER" table --comm-size "$NP"
PROFILE=$("$COLLTUNE" --server "$SERVER" table --comm-size "$NP" --json |
  python3 -c 'import json,sys; s=json.load(sys.stdin)["section"]; print(s["profile_id"] if s else 0)')
if [ "$PROFILE" -gt 0 ]; then
  echo "== violations of the MPI library (guideline and selection) (profile $PROFILE)"
  "$COLLTUNE" --server "$SERVER" violations --profile "$PROFILE"
fi
if [ "$EVALUATE" -eq 1 ]; then
  echo "== evaluation: default, every mock-up and the tuned table, interleaved"
  "$COLLTUNE" --server "$SERVER" evaluate --np "$NP" --bench "$BENCH" </dev/null
fi

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
