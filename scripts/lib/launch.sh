# Shared by the overhead benchmarks (scripts/init_overhead.sh,
# scripts/finalize_overhead.sh).

# Parses the script's options (--np, default 2; --launches, default
# LAUNCHES; --libraries, default both) into NP, LAUNCHES and LIBRARIES,
# installs what is missing, builds bench/PROGRAM for both libraries, the
# shims, colltune and colltuned, and starts a daemon (scripts/lib/daemon.sh).
#   overhead_setup SCRIPT PROGRAM LAUNCHES "$@"
overhead_setup() {
  local script=$1
  OVERHEAD_PROGRAM=$2 NP=2 LAUNCHES=$3 LIBRARIES=openmpi,mpich
  shift 3
  source scripts/lib/options.sh
  options "scripts/$script.sh [--np N] [--launches N] [--libraries openmpi,mpich]" \
    --np=NP --launches=LAUNCHES --libraries=LIBRARIES -- "$@"
  scripts/install-deps.sh
  build_opt "//bench:colltune-$OVERHEAD_PROGRAM" "//bench:colltune-$OVERHEAD_PROGRAM-mpich" \
    //shim:libcolltune.so //shim:libcolltune-mpich.so //cli:colltune //daemon:colltuned
  COLLTUNE=$BIN/cli/colltune
  COLLTUNED=$BIN/daemon/colltuned
  source scripts/lib/daemon.sh "$script"
}

# Sets PROG and SHIM to overhead_setup's program and the shim for LIBRARY.
#   pick openmpi|mpich
pick() {
  if [ "$1" = openmpi ]; then
    PROG=$BIN/bench/colltune-$OVERHEAD_PROGRAM SHIM=$BIN/shim/libcolltune.so
  else
    PROG=$BIN/bench/colltune-$OVERHEAD_PROGRAM-mpich SHIM=$BIN/shim/libcolltune-mpich.so
  fi
}

# For every library of LIBRARIES: the modes interleaved (see interleave),
# then the line "WHAT, LIBRARY, np NP, LAUNCHES launches per mode (WHOSE):"
# and their summary.
#   compare_modes WHAT WHOSE [--over BASE:MODE,...] MODE...
compare_modes() {
  local what=$1 whose=$2 over=() lib libs m
  shift 2
  if [ "$1" = --over ]; then over=(--over "$2"); shift 2; fi
  IFS=, read -r -a libs <<<"$LIBRARIES"
  for lib in "${libs[@]}"; do
    interleave "$lib" "$@"
    echo "$what, $lib, np $NP, $LAUNCHES launches per mode ($whose):"
    summary ${over[@]+"${over[@]}"} $(for m in "$@"; do echo "$WORK/$lib.$m"; done)
  done
}

# Runs an MPI program under either library with environment variables
# passed to every rank, stdin from /dev/null.
#   launch openmpi|mpich NP PROGRAM [NAME=VALUE...]
launch() {
  local lib=$1 np=$2 prog=$3 x=()
  shift 3
  if [ "$lib" = openmpi ]; then
    for e in "$@"; do x+=(-x "$e"); done
    mpirun.openmpi -np "$np" "${x[@]}" "$prog" </dev/null
  else
    for e in "$@"; do x+=(-genv "${e%%=*}" "${e#*=}"); done
    mpirun.mpich -np "$np" "${x[@]}" "$prog" </dev/null
  fi
}

# LAUNCHES rounds of the caller's `run LIBRARY MODE`, every mode once a round
# in random order (a machine drifts between fast and slow spells; interleaving
# spreads them over the modes), each mode's output appended to $WORK/LIBRARY.MODE.
#   interleave LIBRARY MODE...
interleave() {
  local lib=$1 m
  shift
  for m in "$@"; do : >"$WORK/$lib.$m"; done
  for _ in $(seq "$LAUNCHES"); do
    for m in $(printf '%s\n' "$@" | shuf); do
      run "$lib" "$m" >>"$WORK/$lib.$m" || true
    done
  done
}

# One line per FILE (named *.MODE, one figure in ms a line): median, 90th
# percentile, launches, and the median added over mode `native`'s; with
# `--over BASE:MODE,MODE...` first, also over BASE's for the modes listed.
#   summary [--over BASE:MODE,...] FILE...
summary() {
  local over=""
  if [ "$1" = --over ]; then over=$2; shift 2; fi
  python3 - "$over" "$@" <<'PY'
import statistics, sys
over, paths = sys.argv[1], sys.argv[2:]
base, _, listed = over.partition(":")
also = set(listed.split(",")) if listed else set()
rows = {}
for path in paths:
    rows[path.rsplit(".", 1)[1]] = sorted(float(x) for x in open(path) if x.strip())
med = {m: statistics.median(v) for m, v in rows.items() if v}
for mode, v in rows.items():
    if not v:
        print(f"  {mode:12s} no launch succeeded"); continue
    p90 = v[min(len(v) - 1, int(round(0.9 * (len(v) - 1))))]
    added = ""
    if mode != "native" and "native" in med:
        added += f"  added over native {med[mode] - med['native']:+7.2f} ms"
    if mode in also and base in med:
        added += f", over {base} {med[mode] - med[base]:+7.2f} ms"
    print(f"  {mode:12s} median {med[mode]:8.2f} ms  p90 {p90:8.2f} ms  n {len(v):3d}{added}")
PY
}
