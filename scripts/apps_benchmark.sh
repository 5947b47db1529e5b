#!/usr/bin/env bash
# Real applications as the final judge of a table: LAMMPS (C++) and Quantum
# ESPRESSO's pw.x (Fortran 90), Debian's builds, run natively and under the
# shim with the table a campaign on this machine made, launches alternating,
# processes bound. Prints, per application, its own timer (LAMMPS's "Loop
# time", pw.x's WALL) natively and tuned, the ratio tuned/native of the
# medians, and a 95 % confidence interval of the ratio from the launches'
# pairs (t distribution over the per-pair ratios). Under 1: colltune made the
# application faster.
#
#   scripts/apps_benchmark.sh [--np CORES] [--launches 5] [--campaign-launches 4]
#                             [--table FILE]       (a table instead of a campaign)
#                             [--save-table FILE]  (keep the campaign's table)
#                             [--apps "lammps pw.x"]
#                             [--control]  (a second native run per launch:
#                                           native against itself, the noise floor)
#
# The inputs are those of tests/apps/ made larger so that collectives are a
# visible share of the time: LAMMPS's rock-salt system with PPPM at 8x8x8
# cells (4096 atoms, 300 steps), pw.x's silicon SCF with 8x8x8 k-points and
# a 30 Ry cut-off.
#
# One process per core by default, as clusters run these codes. More
# processes than cores time the scheduler as much as the application: each
# launch's wall time then spreads so widely that tens of launches cannot
# tell the shim switched off from no shim (docs/results-2026-11-29.md,
# "The applications on a process per core").
set -euo pipefail
cd "$(dirname "$0")/.."
NP=$(nproc)
LAUNCHES=5
CAMPAIGN_LAUNCHES=4
TABLE=""
SAVE=""
APPS="lammps pw.x"
CONTROL=0
while [ $# -gt 0 ]; do
  case "$1" in
    --save-table) SAVE=$(realpath -m "$2"); shift 2 ;;
    --apps) APPS=$2; shift 2 ;;
    --control) CONTROL=1; shift ;;
    --np) NP=$2; shift 2 ;;
    --launches) LAUNCHES=$2; shift 2 ;;
    --campaign-launches) CAMPAIGN_LAUNCHES=$2; shift 2 ;;
    --table) TABLE=$(realpath "$2"); shift 2 ;;
    *) echo "usage: scripts/apps_benchmark.sh [--np N] [--launches N] [--campaign-launches N] [--table FILE] [--save-table FILE] [--apps LIST] [--control]" >&2; exit 2 ;;
  esac
done
[ "$LAUNCHES" -ge 2 ] || { echo "apps_benchmark.sh: --launches must be at least 2" >&2; exit 2; }

scripts/install-deps.sh
for tool in pw.x ld1.x lmp; do
  command -v "$tool" >/dev/null || { echo "apps_benchmark.sh: $tool is missing" >&2; exit 1; }
done
bazel build -c opt //daemon:colltuned //cli:colltune //bench:colltune-bench \
  //shim:libcolltune.so 2>&1 | tail -n 1
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
COLLTUNED=$BIN/daemon/colltuned
COLLTUNE=$BIN/cli/colltune
SHIM=$BIN/shim/libcolltune.so
MPIRUN="mpirun.openmpi --bind-to core:overload-allowed --map-by core"
source scripts/lib/daemon.sh apps
export OMP_NUM_THREADS=1

if [ -z "$TABLE" ]; then
  echo "== campaign: $CAMPAIGN_LAUNCHES launches of colltune-bench on $NP processes, 3 held out"
  "$COLLTUNE" --server "$SERVER" campaign --np "$NP" --launches "$CAMPAIGN_LAUNCHES" \
    --validate 3 --mpirun "$MPIRUN" --name apps --bench "$BIN/bench/colltune-bench" -- --quiet \
    </dev/null 2>&1 |
    grep -E "^colltune: (launch|validation) [0-9]+/[0-9]+ (done|failed)|takes back|table version [0-9]+:" || true
  TABLE=$WORK/table.txt
  "$COLLTUNE" --server "$SERVER" table --comm-size "$NP" --format shim > "$TABLE"
  [ -n "$SAVE" ] && cp "$TABLE" "$SAVE"
fi
echo "== the table ($(grep -vc -e '^#' -e '^colltune-table' -e '^section' -e '^library' -e ' default' "$TABLE") ranges not default): $TABLE"

# The inputs.
cd "$WORK"
sed -e 's/^region .*/region          box block 0 8 0 8 0 8/' -e 's/^run .*/run             300/' \
  "$OLDPWD/tests/apps/lammps/in.nacl" > in.nacl
sed -e 's/^ 4 4 4 1 1 1/ 8 8 8 1 1 1/' -e 's/ecutwfc = 16.0/ecutwfc = 30.0/' \
  "$OLDPWD/tests/apps/qe/si_scf.in" > si_scf.in
ld1.x < "$OLDPWD/tests/apps/qe/si_ld1.in" > ld1.out 2>&1 || { echo "ld1.x failed" >&2; tail ld1.out >&2; exit 1; }

# run NATIVE|TUNED APP: prints the application's own timer, in seconds.
run() {
  local how=$1 app=$2 env=() out
  if [ "$how" = tuned ]; then
    env=(-x LD_PRELOAD="$SHIM" -x COLLTUNE_TABLE="$TABLE" -x COLLTUNE_SPOOL_DIR="$WORK/spool")
  fi
  if [ "$app" = lammps ]; then
    out=$($MPIRUN -np "$NP" -x OMP_NUM_THREADS ${env[@]+"${env[@]}"} lmp -in in.nacl -log none \
          -echo none 2>&1)
    sed -n 's/^Loop time of \([0-9.e+-]*\) on .*/\1/p' <<<"$out" | tail -n 1
  else
    rm -rf tmp
    out=$($MPIRUN -np "$NP" -x OMP_NUM_THREADS ${env[@]+"${env[@]}"} pw.x -nd 1 -in si_scf.in 2>&1)
    # "PWSCF        :      2.01s CPU      2.23s WALL" (or "1m 2.3s WALL")
    grep -E "^ +PWSCF +:" <<<"$out" | tail -n 1 | python3 -c '
import re, sys
wall = sys.stdin.read().split("CPU")[-1]
m = re.search(r"(?:(\d+)m\s*)?([\d.]+)s\s+WALL", wall)
print(int(m.group(1) or 0) * 60 + float(m.group(2)) if m else "")'
  fi
}

echo "== $LAUNCHES launches each way, order rotating, $NP processes bound$([ "$CONTROL" = 1 ] && echo ", native twice")"
for app in $APPS; do
  native=() tuned=() again=()
  for k in $(seq "$LAUNCHES"); do
    # The order rotates, so that no configuration always runs first.
    order="native tuned again"
    case $((k % 3)) in 2) order="tuned again native" ;; 0) order="again native tuned" ;; esac
    for how in $order; do
      case $how in
        native) native+=("$(run native "$app")") ;;
        tuned) tuned+=("$(run tuned "$app")") ;;
        again) if [ "$CONTROL" = 1 ]; then again+=("$(run native "$app")"); fi ;;
      esac
    done
  done
  python3 - "$app" "${native[*]}" "${tuned[*]}" "${again[*]-}" <<'PY'
import math, statistics, sys
app, native, tuned, again = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()
# A run that printed no timer leaves its series short.
if not native or len(tuned) != len(native) or len(again) not in (0, len(native)):
    sys.exit(f"   {app}: a run printed no timer (native {native}, tuned {tuned}, again {again})")
native, tuned, again = ([float(x) for x in v] for v in (native, tuned, again))
# Two-sided 95 % quantiles of Student's t for n - 1 degrees of freedom.
T = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
     9: 2.262, 10: 2.228}

def pairs(xs):
    ratios = [x / n for n, x in zip(native, xs)]
    mean, sd = statistics.mean(ratios), statistics.stdev(ratios)
    half = T.get(len(ratios) - 1, 2.0) * sd / math.sqrt(len(ratios))
    return (f"{statistics.median(xs) / statistics.median(native):.3f} (medians); per-pair mean "
            f"{mean:.3f}, 95 % CI [{mean - half:.3f}, {mean + half:.3f}]")

timer = "Loop time" if app == "lammps" else "WALL"
print(f"   {app:<7} {timer:<9} native median {statistics.median(native):8.3f} s, tuned "
      f"{statistics.median(tuned):8.3f} s; tuned/native {pairs(tuned)}")
if again:
    print(f"   {'':<7} {'':<9} control: native again, median {statistics.median(again):8.3f} s; "
          f"again/native {pairs(again)}")
print(f"           native {' '.join(f'{x:.3f}' for x in native)}")
print(f"           tuned  {' '.join(f'{x:.3f}' for x in tuned)}")
if again:
    print(f"           again  {' '.join(f'{x:.3f}' for x in again)}")
PY
done
