#!/usr/bin/env bash
# Seed 003's guidelines on this machine, found and repaired: runs
# colltune-datatype-layouts natively under each library and lists the
# violations (DGL1: one contiguous type faster than the derived call; DGL2:
# packing by hand faster). Then it measures the packed forms themselves: a
# run under the shim with a table whose layout rules pack every layout (each
# rank then packs its own data, through the type's dense twin), timing each
# point's packed form and the library's own path (PMPI_) in the same run. It
# writes layout rules (common/table.h, <collective>@<layout>) where the
# packed form was faster, runs again with them, and prints per point the
# library's path over the derived call with the table (speedup) and the
# faster of the two choices over it (tuned/oracle, the packed form's ratio to
# the library taken from the previous run). "Faster" means by 5 % or more.
#
#   scripts/datatype_guidelines.sh [--calls 30] [--rounds 5] [--np-openmpi 4] [--np-mpich 2]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=30
ROUNDS=5
NP_OPENMPI=4
NP_MPICH=2
source scripts/lib/options.sh
options "scripts/datatype_guidelines.sh [--calls N] [--rounds N] [--np-openmpi N] [--np-mpich N]" \
  --calls=CALLS --rounds=ROUNDS --np-openmpi=NP_OPENMPI --np-mpich=NP_MPICH -- "$@"
scripts/install-deps.sh
build_opt //bench:colltune-datatype-layouts //bench:colltune-datatype-layouts-mpich \
  //shim:libcolltune.so //shim:libcolltune-mpich.so
WORK=$(mktemp -d /tmp/colltune-datatypes.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

run() {  # run LIBRARY [TABLE]: the benchmark's lines
  local lib=$1 table=${2:-} args=(--calls "$CALLS" --rounds "$ROUNDS")
  if [ "$lib" = openmpi ]; then
    local env=()
    [ -n "$table" ] && env=(-x LD_PRELOAD="$BIN/shim/libcolltune.so" -x COLLTUNE_TABLE="$table")
    mpirun.openmpi -np "$NP_OPENMPI" --bind-to none ${env[@]+"${env[@]}"} \
      "$BIN/bench/colltune-datatype-layouts" "${args[@]}" </dev/null
  else
    local env=()
    [ -n "$table" ] && env=(-genv LD_PRELOAD "$BIN/shim/libcolltune-mpich.so" -genv COLLTUNE_TABLE "$table")
    mpirun.mpich -np "$NP_MPICH" ${env[@]+"${env[@]}"} \
      "$BIN/bench/colltune-datatype-layouts-mpich" "${args[@]}" </dev/null
  fi
}

for lib in openmpi mpich; do
  run "$lib" | grep -E '^(bcast|allgather) ' >"$WORK/$lib.native"
  python3 - "$WORK/$lib.native" <<'PY'
import sys
print("violations (native):")
n = 0
for coll, layout, a, size, _, d, _, p, _, c, _, _ in (l.split() for l in open(sys.argv[1])):
    d, p, c = float(d), float(p), float(c)
    for name, t in (("DGL1 contiguous", c), ("DGL2 packed", p)):
        if t <= 0.95 * d:
            n += 1
            print(f"  {name:16s} {coll} {layout} {a} {size} B: {t:.1f} against {d:.1f} us derived ({d / t:.2f}x)")
print(f"  {n} violations")
PY
  {
    echo "colltune-table 1"
    echo "section *"
    for coll in bcast allgather; do
      for layout in tiled indexed struct nested; do echo "$coll@$layout 0 inf ${coll}_as_packed"; done
    done
  } >"$WORK/$lib.all"
  run "$lib" "$WORK/$lib.all" | grep -E '^(bcast|allgather) ' >"$WORK/$lib.packed"
  python3 - "$WORK/$lib.packed" "$WORK/$lib.table" <<'PY'
import sys
def bucket(layout, a):
    smallest = 4 * a if layout == "tiled" else 4  # tiles of A ints; a struct's int
    b = 1
    while b * 2 <= smallest:
        b *= 2
    return f"{b}B" if b < 1024 else f"{b // 1024}KiB"
# 32 KiB points speak for sizes up to 2^17.5 bytes, 1 MiB points above.
RANGES = {32768: (0, 185363), 1048576: (185364, "inf")}
pack = {}
for coll, layout, a, size, _, form, _, _, _, _, _, lib in (l.split() for l in open(sys.argv[1])):
    key = (coll, f"{layout}/{bucket(layout, int(a[2:]))}", int(size))
    pack[key] = pack.get(key, True) and float(form) <= 0.95 * float(lib)
with open(sys.argv[2], "w") as out:
    out.write("colltune-table 1\nsection *\n")
    for (coll, key, size), yes in sorted(pack.items()):
        if yes:
            lo, hi = RANGES[size]
            out.write(f"{coll}@{key} {lo} {hi} {coll}_as_packed\n")
PY
  echo "$lib: the layout rules where the packed form was faster than the library's path:"
  sed -n '3,$p' "$WORK/$lib.table" | sed 's/^/  /'
  run "$lib" "$WORK/$lib.table" | grep -E '^(bcast|allgather) ' >"$WORK/$lib.tuned"
  python3 - "$WORK/$lib.packed" "$WORK/$lib.tuned" "$lib" <<'PY'
import math, statistics, sys
packed = {tuple(l.split()[:4]): l.split() for l in open(sys.argv[1])}
print(f"{sys.argv[3]}: speedup = the library's path / the derived call with the table (one "
      "run); tuned/oracle = the faster choice / the derived call with the table")
speed, oracle = [], []
for line in open(sys.argv[2]):
    n = line.split()
    t, lib = float(n[5]), float(n[11])
    k = tuple(n[:4])
    best = lib * min(1.0, float(packed[k][5]) / float(packed[k][11])) if k in packed else lib
    speed.append(lib / t)
    oracle.append(best / t)
    print(f"  {' '.join(k):32s} speedup {lib / t:5.2f}  tuned/oracle {best / t:5.2f}")
print(f"  geometric-mean speedup {math.exp(statistics.mean(math.log(x) for x in speed)):.3f}, "
      f"median tuned/oracle {statistics.median(oracle):.3f}, worst {min(oracle):.3f}")
PY
done
