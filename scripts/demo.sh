#!/usr/bin/env bash
# The main job, end to end on this machine: install what is missing, build,
# start colltuned on a temporary database, run a tuning campaign (colltune
# campaign: 5 mpirun launches of colltune-bench, NREP-estimated repetitions,
# then 3 held-out validation launches that take back a choice slower than
# default there) on 4 processes (every point timed synchronized, back to back
# and after uneven work), print the decision table and the violations (guideline and
# selection), then run an ordinary MPI program with and without the shim at
# every point where the table changes the algorithm, back to back and after
# uneven work, several alternating launches each way, and print the medians
# and a verdict per point (saying plainly where colltune made it slower).
#
#   scripts/demo.sh [--library openmpi|mpich] [--np N] [--launches 5]
#                   [--validate 3] [--nrep auto|N] [--evaluate] [--program-launches 3]
#                   [--nodes N --ppn K [--rate RATE]] [--collectives LIST]
#
# With --nodes, everything runs across an emulated cluster of N nodes with K
# processes each (scripts/cluster.sh, root only; docs/emulated-cluster.md),
# each node's link limited to RATE (tc's units, e.g. 1gbit) if given, and
# taken down at the end. --collectives limits the campaign and the
# evaluation to some collectives (comma-separated).
#
# Open MPI runs on 4 processes by default, MPICH on 2: it busy-polls, and
# more processes than cores would time the scheduler, not the algorithms.
#
# Every mpirun binds its processes (two to a core where there are more
# processes than cores), as a cluster's launcher does: unbound, the kernel
# places them anew in every launch and timings follow the placement.
set -euo pipefail
cd "$(dirname "$0")/.."
LIBRARY=openmpi
NP=""
LAUNCHES=5
VALIDATE=3
NREP=auto
EVALUATE=0
PROGRAM_LAUNCHES=3
NODES=0
PPN=0
RATE=""
COLLECTIVES=""
while [ $# -gt 0 ]; do
  case "$1" in
    --program-launches) PROGRAM_LAUNCHES=$2; shift 2 ;;
    --library) LIBRARY=$2; shift 2 ;;
    --np) NP=$2; shift 2 ;;
    --launches) LAUNCHES=$2; shift 2 ;;
    --validate) VALIDATE=$2; shift 2 ;;
    --nrep) NREP=$2; shift 2 ;;
    --evaluate) EVALUATE=1; shift ;;
    --nodes) NODES=$2; shift 2 ;;
    --ppn) PPN=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --collectives) COLLECTIVES=$2; shift 2 ;;
    *) echo "usage: scripts/demo.sh [--library openmpi|mpich] [--np N] [--launches N] [--validate N] [--nrep auto|N] [--evaluate] [--program-launches N] [--nodes N --ppn K [--rate RATE]] [--collectives LIST]" >&2; exit 2 ;;
  esac
done
case "$LIBRARY" in
  openmpi) NP=${NP:-4} ;;
  mpich) NP=${NP:-2} ;;
  *) echo "demo.sh: --library must be openmpi or mpich, not '$LIBRARY'" >&2; exit 2 ;;
esac
if [ "$NODES" -gt 0 ]; then
  [ "$PPN" -gt 0 ] || { echo "demo.sh: --nodes needs --ppn" >&2; exit 2; }
  [ "$(id -u)" -eq 0 ] || { echo "demo.sh: --nodes needs root (it makes network namespaces)" >&2; exit 2; }
  NP=$((NODES * PPN))
fi

scripts/install-deps.sh
echo "== building"
bazel build -c opt //daemon:colltuned //cli:colltune //bench:colltune-bench \
  //bench:colltune-bench-mpich //shim:libcolltune.so //shim:libcolltune-mpich.so \
  //examples:collective_mix //examples:collective_mix_mpich 2>&1 | tail -n 2
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
COLLTUNED=$BIN/daemon/colltuned
COLLTUNE=$BIN/cli/colltune
if [ "$LIBRARY" = openmpi ]; then
  BENCH=$BIN/bench/colltune-bench
  SHIM=$BIN/shim/libcolltune.so
  APP=$BIN/examples/collective_mix
  MPIRUN="mpirun.openmpi --bind-to core:overload-allowed --map-by core"
  LIBRARY_NAME="Open MPI"
  setenv() { printf -- '-x\n%s=%s\n' "$1" "$2"; }  # an mpirun option setting a variable
else
  BENCH=$BIN/bench/colltune-bench-mpich
  SHIM=$BIN/shim/libcolltune-mpich.so
  APP=$BIN/examples/collective_mix_mpich
  MPIRUN="mpirun.mpich -bind-to core"
  LIBRARY_NAME=MPICH
  setenv() { printf -- '-genv\n%s\n%s\n' "$1" "$2"; }
fi
source scripts/lib/daemon.sh demo
echo "== colltuned on $SERVER, database $WORK/colltune.db"
LAYOUT=()  # the table's layout arguments
if [ "$NODES" -gt 0 ]; then
  CL=demo$(( $$ % 100000 ))
  trap 'kill $DAEMON 2>/dev/null; wait $DAEMON 2>/dev/null; rm -rf "$WORK"
        scripts/cluster.sh down --name "$CL" >/dev/null 2>&1' EXIT
  eval "$(scripts/cluster.sh up "$NODES" --name "$CL" \
          --subnet "10.$(( 100 + $$ % 100 )).$(( ($$ / 100) % 250 ))" ${RATE:+--rate "$RATE"})"
  HOSTS=$(for n in $CLUSTER_NODES; do printf '%s:%s,' "$n" "$PPN"; done)
  HOSTS=${HOSTS%,}
  if [ "$LIBRARY" = openmpi ]; then
    # Open MPI busy-polls: 4 processes on 2 cores must yield while they wait.
    MPIRUN="mpirun.openmpi --host $HOSTS --mca plm_rsh_agent $CLUSTER_AGENT
      --mca btl_tcp_if_include $CLUSTER_SUBNET --mca oob_tcp_if_include $CLUSTER_SUBNET
      --mca mpi_yield_when_idle 1 --bind-to core:overload-allowed"
  else
    MPIRUN="mpirun.mpich -hosts $HOSTS -launcher ssh -launcher-exec $CLUSTER_AGENT
      -iface $CLUSTER_BRIDGE -genv MPIR_CVAR_POLLS_BEFORE_YIELD 1"
  fi
  MPIRUN=$(echo $MPIRUN)
  LAYOUT=(--nodes "$NODES" --ppn "$PPN")
  echo "== emulated cluster $CL: $NODES nodes ($CLUSTER_NODES) x $PPN processes${RATE:+, links limited to $RATE}"
fi
BENCH_ARGS=(--nrep "$NREP" --quiet)
[ -n "$COLLECTIVES" ] && BENCH_ARGS+=(--collectives "$COLLECTIVES")

echo "== tuning campaign: $LAUNCHES launches of colltune-bench on $NP processes, $VALIDATE held out"
"$COLLTUNE" --server "$SERVER" campaign --mpi "$LIBRARY" --np "$NP" --launches "$LAUNCHES" \
  --validate "$VALIDATE" --mpirun "$MPIRUN" --name demo --bench "$BENCH" -- "${BENCH_ARGS[@]}" \
  </dev/null 2>&1 |
  { grep -Ev "^colltune: (launch|validation) [0-9]*/[0-9]*: |^colltune-bench:   " || true; }

echo "== decision table for $LIBRARY_NAME on $NP processes"
"$COLLTUNE" --server "$SERVER" table --library "$LIBRARY_NAME" --comm-size "$NP" ${LAYOUT[@]+"${LAYOUT[@]}"}
PROFILE=$("$COLLTUNE" --server "$SERVER" table --library "$LIBRARY_NAME" --comm-size "$NP" ${LAYOUT[@]+"${LAYOUT[@]}"} --json |
  python3 -c 'import json,sys; s=json.load(sys.stdin)["section"]; print(s["profile_id"] if s else 0)')
if [ "$PROFILE" -gt 0 ]; then
  echo "== violations of the MPI library (guideline and selection) (profile $PROFILE)"
  "$COLLTUNE" --server "$SERVER" violations --profile "$PROFILE"
fi
if [ "$EVALUATE" -eq 1 ]; then
  echo "== evaluation: default, every mock-up and the tuned table, interleaved"
  "$COLLTUNE" --server "$SERVER" evaluate --mpi "$LIBRARY" --np "$NP" --mpirun "$MPIRUN" --launches 3 \
    --bench "$BENCH" ${COLLECTIVES:+-- --collectives "$COLLECTIVES"} </dev/null
fi

echo "== the same MPI program without and with the shim ($LIBRARY_NAME, $NP processes)"
# For every range where the table replaced default, one size inside it that
# collective_mix can run. Each point runs back to back (a loop of calls) and
# after uneven work, in each regime where the table runs something else than
# default there (a regime switch in its own regime only), (each rank computes up to the call's own time before
# each call), $PROGRAM_LAUNCHES launches each way, alternating, processes
# bound as for the campaign; the verdict compares the medians of the steady
# loop, timed after a first loop of 3000 calls (300 above 64 KiB; "first":
# the speedup in that first loop, which holds what a process pays once, and
# where glibc may still trim its heap after every call: results-2026-11-28).
"$COLLTUNE" --server "$SERVER" table --library "$LIBRARY_NAME" --comm-size "$NP" ${LAYOUT[@]+"${LAYOUT[@]}"} --json > "$WORK/table.json"
if [ "$PROFILE" -gt 0 ]; then
  "$COLLTUNE" --server "$SERVER" profile "$PROFILE" --json > "$WORK/profile.json"
else
  echo '{"points": []}' > "$WORK/profile.json"
fi
# The tuned points: for every range where the table replaced default, the
# campaign's own measured size in the middle of it (a range's ends lie
# between measured sizes, where the table interpolates); for a range with no
# measured size (a pin), the smallest power of two in it.
mapfile -t POINTS < <(python3 - "$WORK/table.json" "$WORK/profile.json" <<'PY'
import json, sys
table = json.load(open(sys.argv[1]))
measured = {}
for p in json.load(open(sys.argv[2])).get("points", []):
    if p["algorithm"] == "default" and p.get("regime", "sync") == "sync":
        measured.setdefault(p["collective"], set()).add(p["msg_bytes"])
runnable = {"allreduce", "reduce", "bcast", "gather", "scatter", "allgather"}
for r in (table.get("section") or {}).get("rules", []):
    # What the range runs back to back and after uneven work: its regime
    # switch there, if it has one (docs/architecture.md), else its choice.
    runs = [r.get("loop_algorithm") or r["algorithm"], r.get("imbalance_algorithm") or r["algorithm"]]
    if runs == ["default", "default"] or r["collective"] not in runnable:
        continue
    lo, hi = max(r["min_bytes"], 1), r["max_bytes"]
    inside = sorted(b for b in measured.get(r["collective"], ())
                    if lo <= b and (hi is None or b <= hi) and 1 <= b <= (1 << 20))
    if inside:
        print(r["collective"], inside[(len(inside) - 1) // 2], *runs)
        continue
    size = 1
    while size < lo:
        size *= 2
    if hi is not None and size > hi:
        size = lo
    if size <= (1 << 20) and (hi is None or size <= hi):
        print(r["collective"], size, *runs)
PY
)
if [ "${#POINTS[@]}" -eq 0 ]; then
  echo "   the table keeps the library's default everywhere this program can show: nothing to compare."
  exit 0
fi
# Prints the median of the program's us/call over its launches.
median() { python3 -c 'import statistics,sys; print("%.2f" % statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
run_mix() {  # plain|tuned collective bytes iters extra-args...
  local how=$1 coll=$2 bytes=$3 iters=$4; shift 4
  local warmup=3000
  [ "$bytes" -gt 65536 ] && warmup=300
  local env=()
  [ "$how" = tuned ] && mapfile -t env < <(setenv LD_PRELOAD "$SHIM"; setenv COLLTUNE_SERVER "$SERVER"
                                           setenv COLLTUNE_AGENT "$COLLTUNE"
                                           setenv COLLTUNE_CACHE_DIR "$WORK/cache")
  local out
  out=$($MPIRUN -np "$NP" ${env[@]+"${env[@]}"} "$APP" --collectives "$coll" --bytes "$bytes" \
        --iters "$iters" --warmup "$warmup" "$@")
  grep -q verified <<<"$out" || { echo "results not verified: $out" >&2; exit 1; }
  # us/call of the steady loop, and of the first loop (the process's first
  # calls, which pay what a long job pays once)
  awk -v c="$coll" '$1 == c { f = $0; sub(/.*: /, "", f); sub(/ us.*/, "", f); print $4 "/" f }' <<<"$out"
}
printf '   %-10s %8s  %-36s %-9s %10s %10s %7s %7s  %s\n' collective bytes "tuned algorithm" regime \
  "default_us" "tuned_us" speedup first verdict
slower=0 faster=0 level=0
: > "$WORK/ratios"
# The steady loop lasts about a quarter of a second of default's time (a
# calibration launch sizes it): loops of a few milliseconds time a transient,
# before a root has met the messages piling up behind it, and a loop shorter
# than a scheduler tick is decided by where a preemption falls
# (docs/results-2026-11-28.md, "The demo's program, timed in its steady state").
loop_iters() {  # collective bytes
  local t
  t=$(run_mix plain "$1" "$2" 3000 | cut -d/ -f1)
  python3 -c "import sys; t = float(sys.argv[1]); print(max(300, min(100000, int(250000 / max(t, 0.1)))))" "$t"
}
launch_pairs() {  # N: N launches each way, alternating, appended to plain/tuned
  local k base=${#plain[@]}
  for k in $(seq "$1"); do
    if [ $(((base + k) % 2)) -eq 1 ]; then
      plain+=("$(run_mix plain "$coll" "$bytes" "$iters" ${extra[@]+"${extra[@]}"})")
      tuned+=("$(run_mix tuned "$coll" "$bytes" "$iters" ${extra[@]+"${extra[@]}"})")
    else
      tuned+=("$(run_mix tuned "$coll" "$bytes" "$iters" ${extra[@]+"${extra[@]}"})")
      plain+=("$(run_mix plain "$coll" "$bytes" "$iters" ${extra[@]+"${extra[@]}"})")
    fi
  done
}
# Launches of one program differ by placement (on this 2-core machine by
# 20-40 % at sub-microsecond calls), so a verdict needs the launches apart:
# slower (or faster) by 5 % in the medians and in the launches' ranks (an
# exact one-sided Mann-Whitney test at 0.05; with 3 launches each way that
# means every launch). Medians 5 % apart with launches that overlap are
# "undecided" until a second round of launches; then they are reported as
# what they are, within the spread of default's own launches.
cat > "$WORK/verdict.py" <<'PY'
import itertools, statistics, sys
plain = [float(x.split("/")[0]) for x in sys.argv[1].split()]
tuned = [float(x.split("/")[0]) for x in sys.argv[2].split()]
final = len(sys.argv) > 3
def p_greater(a, b):
    """Exact one-sided Mann-Whitney p that `a` tends to be larger than `b` (ties count half)."""
    u = lambda xs, ys: sum((x > y) + 0.5 * (x == y) for x in xs for y in ys)
    pooled, observed = a + b, u(a, b)
    splits = list(itertools.combinations(range(len(pooled)), len(a)))
    return sum(u([pooled[i] for i in s], [pooled[i] for i in range(len(pooled)) if i not in s])
               >= observed - 1e-9 for s in splits) / len(splits)
r = statistics.median(plain) / statistics.median(tuned)
spread = "default's own launches %.2f-%.2f us" % (min(plain), max(plain))
launches = "%d launches each way" % len(plain)
if r < 0.95 and p_greater(tuned, plain) <= 0.05:
    print("SLOWER with colltune (%s)" % launches)
elif r >= 1.05 and p_greater(plain, tuned) <= 0.05:
    print("faster" if len(plain) <= 3 else "faster (%s)" % launches)
elif (r < 0.95 or r >= 1.05) and not final:
    print("undecided")
elif r < 0.95:
    print("slower in the median, not in the launches (%s; %s)" % (spread, launches))
else:
    print("level (%s; %s)" % (spread, launches))
PY
for point in "${POINTS[@]}"; do
  read -r coll bytes loop_alg imbalance_alg <<<"$point"
  iters=$(loop_iters "$coll" "$bytes")
  work=""
  for regime in loop imbalance; do
    alg=$loop_alg
    [ "$regime" = imbalance ] && alg=$imbalance_alg
    # Default's time back to back sizes the work after it.
    [ "$regime" = imbalance ] && [ -z "$work" ] && work=$(median $(for k in 1 2 3; do run_mix plain "$coll" "$bytes" "$iters" | cut -d/ -f1; done))
    [ "$alg" = default ] && continue  # the table changes nothing there
    extra=()
    [ "$regime" = imbalance ] && extra=(--work "$work")
    plain=() tuned=()
    launch_pairs "$PROGRAM_LAUNCHES"
    verdict=$(python3 "$WORK/verdict.py" "${plain[*]}" "${tuned[*]}")
    if [ "$verdict" = undecided ]; then
      # The medians differ by 5 % or more but the launches overlap: as many
      # launches again each way, and the verdict on all of them.
      launch_pairs "$PROGRAM_LAUNCHES"
      verdict=$(python3 "$WORK/verdict.py" "${plain[*]}" "${tuned[*]}" final)
    fi
    t0=$(median "${plain[@]%/*}") t1=$(median "${tuned[@]%/*}")
    f0=$(median "${plain[@]#*/}") f1=$(median "${tuned[@]#*/}")
    first=$(python3 -c "print('%.2f' % ($f0 / $f1 if $f1 > 0 else 1))")
    # Uneven work of the order of the call's own time.
    [ "$regime" = loop ] && work=$t0
    ratio=$(python3 -c "print('%.2f' % ($t0 / $t1 if $t1 > 0 else 1))")
    echo "$ratio" >> "$WORK/ratios"
    case "$verdict" in
      SLOWER*) slower=$((slower + 1)) ;;
      faster*) faster=$((faster + 1)) ;;
      *) level=$((level + 1)) ;;
    esac
    below=$(python3 -c "print(1 if $ratio < 0.95 else 0)")
    below_median=$((${below_median:-0} + below))
    printf '   %-10s %8s  %-36s %-9s %10s %10s %6sx %6sx  %s\n' "$coll" "$bytes" "$alg" "$regime" \
      "$t0" "$t1" "$ratio" "$first" "$verdict"
  done
done
geomean=$(python3 -c 'import math,sys; v=[float(x) for x in open(sys.argv[1])]; print("%.3f" % math.exp(sum(map(math.log, v)) / len(v)))' "$WORK/ratios")
echo "== verdict: of $((slower + faster + level)) (point, regime) pairs the table changes, $faster faster and $slower slower (by 5 % in the medians and in the launches' ranks), $level level; medians below 0.95x: ${below_median:-0}; geometric-mean speedup $geomean ($PROGRAM_LAUNCHES launches each way, twice that where the first ones left it undecided)"
if [ "$slower" -gt 0 ]; then
  echo "   colltune made this program SLOWER at $slower of them (marked above)."
else
  echo "   colltune made this program slower at none of them beyond the launches' own spread."
fi
echo "== done (results of every run verified by the program itself)"
