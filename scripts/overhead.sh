#!/usr/bin/env bash
# Prints, for every guideline mock-up of seed 004 (GL1-GL22) and message
# size, its time through the shim relative to a hand-written composition of
# the same PMPI calls without the shim, both measured interleaved in one run
# (bench/overhead.cc). Seed 000's trees have no such composition: their
# reference is the library's own collective (colltune-bench --irregular).
#
#   scripts/overhead.sh [--np 2] [--nrep 300]
set -euo pipefail
cd "$(dirname "$0")/.."
NP=2
NREP=300
while [ $# -gt 0 ]; do
  case "$1" in
    --np) NP=$2; shift 2 ;;
    --nrep) NREP=$2; shift 2 ;;
    *) echo "usage: scripts/overhead.sh [--np N] [--nrep N]" >&2; exit 2 ;;
  esac
done
scripts/install-deps.sh
bazel build -c opt //bench:colltune-overhead //shim:libcolltune.so //cli:colltune 2>&1 | tail -n 1
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
first=1
"$BIN/cli/colltune" algorithms | awk 'NR > 1 && $3 ~ /^GL/ { print $1, $2 }' |
while read -r coll alg; do
  mpirun.openmpi -np "$NP" -x LD_PRELOAD="$BIN/shim/libcolltune.so" \
    -x COLLTUNE_FORCE="$coll=$alg" "$BIN/bench/colltune-overhead" \
    --algorithm "$alg" --nrep "$NREP" </dev/null | if [ $first = 1 ]; then cat; else tail -n +2; fi
  first=0
done
