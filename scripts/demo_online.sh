#!/usr/bin/env bash
# Continuous retuning, shown: colltuned starts with a deliberately wrong
# profile (scatter_as_bcast, which broadcasts p times the data, claimed twice
# as fast as the library's scatter from 64 KiB up), so its table picks the slow
# mock-up. The same workload job (3000 scatters of 64 KiB on 4 processes) then
# runs again and again under the shim, which times 1 call in 128, explores
# the alternatives on its 1% budget and reports at MPI_Finalize. Each line
# shows the job's time per call and the table's choice after its report; the
# demo stops two jobs after the choice changed (one report is enough to go
# back to default: daemon/engine.h, online evidence).
#
#   scripts/demo_online.sh [--jobs 8]
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=8
source scripts/lib/options.sh
options "scripts/demo_online.sh [--jobs N]" --jobs=JOBS -- "$@"

scripts/install-deps.sh
echo "== building"
build_opt //daemon:colltuned //cli:colltune //shim:libcolltune.so //examples:collective_mix \
  //tests/e2e:seed_profile_openmpi
COLLTUNE=$BIN/cli/colltune
SHIM=$BIN/shim/libcolltune.so

COLLTUNED=$BIN/daemon/colltuned
# Every job of the demo is this user's, and the daemon knows it (the unix
# socket's SO_PEERCRED): one uid must be enough for job reports to count.
COLLTUNED_ARGS=(--online-min-uids 1)
source scripts/lib/daemon.sh online-demo

echo "== a wrong profile: scatter_as_bcast 'measured' twice as fast as the library"
mpirun.openmpi -np 4 "$BIN/tests/e2e/seed_profile_openmpi" --server "$SERVER" \
  scatter:scatter_as_bcast:65536 scatter:scatter_as_bcast:1048576 </dev/null >/dev/null
choice() {  # the table's algorithm for a 64 KiB scatter on 4 processes
  "$COLLTUNE" --server "$SERVER" table --comm-size 4 --format shim |
    awk '$1 == "scatter" && $2 <= 65536 && ($3 == "inf" || $3 >= 65536) { print $4 }'
}
echo "   the table runs $(choice) for a 64 KiB scatter"

echo "== the workload, job after job, with the shim reporting"
printf '   %-4s %10s  %-28s %s\n' job us/call "table after its report" "what the job ran"
after=-1
for i in $(seq "$JOBS"); do
  out=$(mpirun.openmpi -np 4 -x LD_PRELOAD="$SHIM" -x COLLTUNE_SERVER="$SERVER" \
    -x COLLTUNE_AGENT="$COLLTUNE" -x COLLTUNE_CACHE_DIR="$WORK/cache" \
    -x COLLTUNE_SPOOL_DIR="$WORK/spool" -x COLLTUNE_EXPLORE_MIN_CALLS=100 \
    -x COLLTUNE_VERBOSE=1 "$BIN/examples/collective_mix" --collectives scatter \
    --bytes 65536 --iters 3000 </dev/null 2>&1)
  grep -q "results verified" <<<"$out" || { echo "$out"; exit 1; }
  ran=$(grep -o "ran mock-ups.*" <<<"$out" | head -n 1 || true)
  printf '   %-4s %10s  %-28s %s\n' "$i" "$(awk '$1 == "scatter" { print $4 }' <<<"$out")" \
    "$(choice)" "${ran:-no mock-up}"
  if [ "$after" -lt 0 ] && [ "$(choice)" != scatter_as_bcast ]; then after=$i; fi
  if [ "$after" -ge 0 ] && [ "$i" -ge $((after + 2)) ]; then break; fi
done
if [ "$after" -lt 0 ]; then
  echo "== the table did not change within $JOBS jobs"
  exit 1
fi
echo "== the table changed after job $after; what it says now, and why"
"$COLLTUNE" --server "$SERVER" table --comm-size 4 | grep -E "collective|^scatter"
"$COLLTUNE" --server "$SERVER" history --profile 1 | head -n 4
