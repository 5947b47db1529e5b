#!/usr/bin/env bash
# What colltune's way of forcing one of the library's own algorithms costs
# per call, over the library forcing it itself, and what the shim's
# pass-through costs. Each job measures it in one run: colltune-loop
# (bench/loop.c) alternates blocks of calls through the shim, which forces
# native:<name> (COLLTUNE_FORCE), with blocks straight to the library on a
# communicator where the library's own control forces the same algorithm
# (Open MPI: coll_tuned_<collective>_algorithm; MPICH: its
# MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM), and prints both per-call times.
# Each case runs --rounds jobs; the medians of the per-job differences are
# printed. Then the pass-through (the shim loaded, nothing to do) against the
# library, the same way, and callgrind's instructions per call of both paths.
#
#   scripts/native_overhead.sh [--rounds 5]
#
# Processes are bound (two to a core where there are more processes than
# cores); MPICH runs on 2 processes (it busy-polls: more processes than cores
# time the scheduler).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/loop_setup.sh native_overhead "$@"
bazel build -c opt //bench:colltune-loop-mpich //bench:colltune-bench //bench:colltune-bench-mpich \
  //shim:libcolltune-mpich.so 2>&1 | tail -n 1

# library|np|collective|native name|bytes
CASES=(
  "openmpi|4|bcast|basic_linear|512"
  "openmpi|4|scan|recursive_doubling|8"
  "openmpi|4|allreduce|recursive_doubling|8"
  "openmpi|4|reduce|binomial|1048576"
  "mpich|2|bcast|binomial|512"
  "mpich|2|allreduce|recursive_doubling|8"
  "mpich|2|reduce|binomial|2048"
)

launcher() {  # launcher LIBRARY NP
  if [ "$1" = openmpi ]; then
    echo "mpirun.openmpi --bind-to core:overload-allowed --map-by core -np $2"
  else
    echo "mpirun.mpich -bind-to core -np $2"
  fi
}
envflag() {  # envflag LIBRARY NAME=VALUE
  if [ "$1" = openmpi ]; then echo "-x $2"; else echo "-genv ${2%%=*} ${2#*=}"; fi
}

# The value the library gives its own algorithm NAME of COLLECTIVE.
value_of() {  # value_of LIBRARY COLLECTIVE NAME
  local bench=$BIN/bench/colltune-bench
  [ "$1" = mpich ] && bench=$BIN/bench/colltune-bench-mpich
  # shellcheck disable=SC2046
  $(launcher "$1" 1) "$bench" --collectives "$2" --list-algorithms </dev/null 2>/dev/null |
    awk -v c="$2" -v a="native:$3" '$1 == c && $2 == a { print $3 }'
}

echo "== forcing the library's own algorithm: through the shim against the library's own control"
echo "   (median of $ROUNDS jobs of the per-job difference; each job interleaves both paths)"
printf '   %-8s %3s %-10s %-20s %8s %12s %12s %10s %7s\n' library np collective algorithm bytes \
  shim_us library_us diff_us ratio
for c in "${CASES[@]}"; do
  IFS='|' read -r lib np coll name bytes <<<"$c"
  value=$(value_of "$lib" "$coll" "$name")
  if [ -z "$value" ]; then
    echo "   $lib $coll native:$name: the library does not offer it here; skipped"
    continue
  fi
  loop=$BIN/bench/colltune-loop shim=$SHIM
  [ "$lib" = mpich ] && loop=$BIN/bench/colltune-loop-mpich shim=$BIN/shim/libcolltune-mpich.so
  lines=""
  for round in $(seq 1 "$ROUNDS"); do
    # shellcheck disable=SC2046
    lines+="$($(launcher "$lib" "$np") $(envflag "$lib" LD_PRELOAD="$shim") \
      $(envflag "$lib" COLLTUNE_FORCE="$coll=native:$name") "$loop" --collective "$coll" \
      --bytes "$bytes" --library-value "$value" --block 200 --blocks 100 </dev/null 2>&1 | tail -n 1)"$'\n'
  done
  python3 - "$lib" "$np" "$coll" "$name" "$bytes" "$lines" <<'PY'
import re, statistics, sys
lib, np, coll, name, nbytes, lines = sys.argv[1:]
shim, direct = [], []
for line in lines.splitlines():
    m = re.search(r"shim\) ([0-9.]+) us/call, PMPI_ .*?\) ([0-9.]+) us/call", line)
    if m:
        shim.append(float(m.group(1))); direct.append(float(m.group(2)))
if not shim:
    print(f"   {lib} {coll} native:{name}: no measurement ({lines.strip()[:200]})")
    sys.exit(0)
diff = statistics.median(s - d for s, d in zip(shim, direct))
ratio = statistics.median(s / d for s, d in zip(shim, direct))
print(f"   {lib:<8} {np:>3} {coll:<10} {'native:' + name:<20} {nbytes:>8} "
      f"{statistics.median(shim):12.3f} {statistics.median(direct):12.3f} {diff:+10.3f} {ratio:7.3f}")
PY
done

echo "== the pass-through: the shim loaded with nothing to do, against the library"
for lib in openmpi mpich; do
  loop=$BIN/bench/colltune-loop shim=$SHIM
  [ "$lib" = mpich ] && loop=$BIN/bench/colltune-loop-mpich shim=$BIN/shim/libcolltune-mpich.so
  lines=""
  for round in $(seq 1 "$ROUNDS"); do
    # shellcheck disable=SC2046
    lines+="$($(launcher "$lib" 2) $(envflag "$lib" LD_PRELOAD="$shim") "$loop" --bytes 8 \
      </dev/null 2>&1 | tail -n 1)"$'\n'
  done
  python3 - "$lib" "$lines" <<'PY'
import re, statistics, sys
lib, lines = sys.argv[1:]
pairs = [tuple(map(float, m.groups())) for m in
         re.finditer(r"shim\) ([0-9.]+) us/call, PMPI_ .*?\) ([0-9.]+) us/call", lines)]
diff = statistics.median((s - d) * 1e3 for s, d in pairs)
print(f"   {lib:<8} allreduce 8 B, 2 processes: through the shim "
      f"{statistics.median(s for s, _ in pairs):.4f} us/call, the library "
      f"{statistics.median(d for _, d in pairs):.4f}; difference {diff:+.1f} ns per call "
      f"(median of {len(pairs)} jobs)")
PY
done
echo "== instructions per call (callgrind, 1 process, 8-byte allreduce): through the shim and straight"
for block in 1000 2000; do
  OMPI_MCA_coll_tuned_use_dynamic_rules=1 LD_PRELOAD="$SHIM" valgrind --tool=callgrind \
    --callgrind-out-file="$WORK/cg.$block" "$BIN/bench/colltune-loop" --bytes 8 --blocks 10 \
    --block "$block" >/dev/null 2>&1 || true
done
python3 - "$WORK/cg.1000" "$WORK/cg.2000" <<'PY'
import re, sys
def total(path):
    for line in open(path):
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
a, b = total(sys.argv[1]), total(sys.argv[2])
# 2 paths x 10 blocks x 1000 more calls each between the two runs.
print(f"   {(b - a) / 20000:.1f} instructions per call, averaged over both paths "
      "(scripts/online_overhead.sh separates them)")
PY
