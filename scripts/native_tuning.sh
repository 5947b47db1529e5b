#!/usr/bin/env bash
# The libraries' own algorithms as candidates, in one run: for Open MPI and MPICH, a tuning
# campaign over the default grid with the library's own algorithms as
# candidates alongside default and the mock-ups (timed: the target is one
# launch in at most 180 s here), then `colltune evaluate` over the same grid,
# whose oracle is the fastest algorithm measured at each point, the library's
# own included. Prints per library:
#   launch times, the evaluate summary (tuned/oracle median, worst, mean
#   penalty; tuned/default), and the selection violations found.
#
#   scripts/native_tuning.sh [--np 4] [--mpich-np N] [--launches 4] [--eval-launches 3]
#                            [--libraries "openmpi mpich"] [--bind core|none]
#                            [--keep DIR]   (campaign and evaluate outputs, each launch's
#                                            medians and points, the database)
#
# The evaluation runs --eval-launches jobs and combines them as the campaign
# does (each point's latencies are medians of per-launch medians): one job
# is one placement of the processes, and judging a table on one placement
# charges it for that placement's luck.
#
# --bind core (the default) binds each process to a core, two to a core when
# there are more processes than cores (Open MPI: --bind-to
# core:overload-allowed --map-by core; MPICH: -bind-to core), as a cluster's
# launcher binds its ranks. Unbound and oversubscribed (Open MPI binds
# nothing once a node is oversubscribed), the kernel places the processes
# anew in every launch and whole launches switch between a fast and a slow
# regime: measured here over 6 launches of 7 collectives at 1 B-16 KiB, the
# fastest algorithm picked on 3 launches was 6-8 % slower than the best on
# the other 3 unbound, 0.5-2 % bound. --bind none measures the unbound case.
#
# MPICH busy-polls: with more processes than cores (4 on this 2-core
# machine) every collective takes milliseconds and no timing means anything,
# so MPICH runs on --mpich-np processes: by default --np where the machine has
# that many cores, else one per core (2 here).
set -euo pipefail
cd "$(dirname "$0")/.."
NP=4
MPICH_NP=""
LAUNCHES=4
EVAL_LAUNCHES=3
LIBRARIES="openmpi mpich"
KEEP=""
BIND=core
while [ $# -gt 0 ]; do
  case "$1" in
    --np) NP=$2; shift 2 ;;
    --mpich-np) MPICH_NP=$2; shift 2 ;;
    --launches) LAUNCHES=$2; shift 2 ;;
    --eval-launches) EVAL_LAUNCHES=$2; shift 2 ;;
    --libraries) LIBRARIES=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    --bind) BIND=$2; shift 2 ;;
    *) echo "usage: scripts/native_tuning.sh [--np N] [--mpich-np N] [--launches N] [--eval-launches N] [--libraries LIST] [--bind core|none] [--keep DIR]" >&2; exit 2 ;;
  esac
done
if [ -z "$MPICH_NP" ]; then
  cores=$(nproc)
  MPICH_NP=$((cores < NP ? cores : NP))
  [ "$MPICH_NP" -ge 2 ] || MPICH_NP=2
fi
case "$BIND" in
  core | none) ;;
  *) echo "native_tuning.sh: --bind must be core or none, not '$BIND'" >&2; exit 2 ;;
esac

bazel build -c opt //daemon:colltuned //cli:colltune //bench:colltune-bench \
  //bench:colltune-bench-mpich 2>&1 | tail -n 1
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
COLLTUNED=$BIN/daemon/colltuned
COLLTUNE=$BIN/cli/colltune

source scripts/lib/daemon.sh native
CT=("$COLLTUNE" --server "$SERVER")

for lib in $LIBRARIES; do
  if [ "$lib" = openmpi ]; then
    np=$NP bench=$BIN/bench/colltune-bench
    mpirun="mpirun.openmpi --bind-to core:overload-allowed --map-by core"
  else
    np=$MPICH_NP bench=$BIN/bench/colltune-bench-mpich
    mpirun="mpirun.mpich -bind-to core"
  fi
  launch=(--mpi "$lib" --np "$np" --bench "$bench")
  if [ "$BIND" = core ]; then
    launch+=(--mpirun "$mpirun")
    echo "== $lib: launched as $mpirun"
  else
    echo "== $lib: launched unbound"
  fi
  logs=()
  if [ -n "$KEEP" ]; then
    mkdir -p "$KEEP/$lib-campaign" "$KEEP/$lib-evaluate"
    logs=(--log-dir "$KEEP/$lib-campaign")
  fi
  echo "== $lib, $np processes: campaign of $LAUNCHES launches over the default grid"
  "${CT[@]}" campaign ${logs[@]+"${logs[@]}"} "${launch[@]}" --launches "$LAUNCHES" --name "native-$lib" \
    -- --quiet </dev/null 2>&1 | tee "$WORK/$lib-campaign.txt" |
    grep -E "^colltune: (launch|validation) [0-9]+/[0-9]+ (done|failed)|^campaign |^held-out |table version [0-9]+:" || true
  echo "== $lib, $np processes: evaluate (the oracle includes the library's own algorithms)"
  [ -n "$KEEP" ] && logs=(--log-dir "$KEEP/$lib-evaluate")
  "${CT[@]}" evaluate ${logs[@]+"${logs[@]}"} "${launch[@]}" --launches "$EVAL_LAUNCHES" </dev/null \
    >"$WORK/$lib-evaluate.txt" 2>&1 || true
  grep "^evaluate:" "$WORK/$lib-evaluate.txt" || tail -n 20 "$WORK/$lib-evaluate.txt"
  if [ -n "$KEEP" ]; then
    mkdir -p "$KEEP" && cp "$WORK/$lib-campaign.txt" "$WORK/$lib-evaluate.txt" "$KEEP/"
  fi
  library=$([ "$lib" = openmpi ] && echo "Open MPI" || echo MPICH)
  profile=$("${CT[@]}" table --library "$library" --comm-size "$np" --json 2>/dev/null |
    python3 -c 'import json,sys; s=json.load(sys.stdin)["section"]; print(s["profile_id"] if s else 0)' 2>/dev/null || echo 0)
  if [ "$profile" -gt 0 ]; then
    echo "== $lib: the library's selection bugs (its own algorithm significantly faster than its choice)"
    { "${CT[@]}" violations --profile "$profile" | awk '/selection/{p=1} p' | head -n 25; } || true
  fi
done
if [ -n "$KEEP" ]; then
  # The profiles' raw samples, for colltune-replay and scripts/whatif_table.py.
  sqlite3 "$WORK/colltune.db" ".backup '$KEEP/colltune.db'" 2>/dev/null ||
    cp "$WORK/colltune.db" "$KEEP/colltune.db"
fi
