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
source scripts/lib/options.sh
options "scripts/overhead.sh [--np N] [--nrep N]" --np=NP --nrep=NREP -- "$@"
scripts/install-deps.sh
build_opt //bench:colltune-overhead //shim:libcolltune.so //cli:colltune
first=1
"$BIN/cli/colltune" algorithms | awk 'NR > 1 && $3 ~ /^GL/ { print $1, $2 }' |
while read -r coll alg; do
  mpirun.openmpi -np "$NP" -x LD_PRELOAD="$BIN/shim/libcolltune.so" \
    -x COLLTUNE_FORCE="$coll=$alg" "$BIN/bench/colltune-overhead" \
    --algorithm "$alg" --nrep "$NREP" </dev/null | if [ $first = 1 ]; then cat; else tail -n +2; fi
  first=0
done
