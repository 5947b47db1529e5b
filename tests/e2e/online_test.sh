#!/usr/bin/env bash
# Continuous retuning, for real: the daemon holds a deliberately wrong table
# (a slow mock-up chosen for scatter from 8 KiB up: Bcast of the whole
# buffer, p times the data); the same workload job
# runs again and again under the shim, which samples its calls, explores the
# alternatives on a small budget and reports at MPI_Finalize. After one job
# (default ran faster in it) the table no longer picks the slow algorithm and
# the workload's time drops. Then the spool: reports survive a daemon outage and
# are sent by the next job or by `colltune flush`; hostile spool files are
# rejected without harm.
#
# Args: colltuned colltune seed_profile collective_mix libcolltune.so
source tests/lib/testlib.sh
args_as COLLTUNED COLLTUNE_CLI SEED APP SHIM -- "$@"
SOCK="$T_TMP/d.sock"
SERVER="unix:$SOCK"
DB="$T_TMP/online.db"
SPOOL="$T_TMP/spool"
SLOW=scatter_as_bcast
export COLLTUNE_AGENT="$COLLTUNE_CLI" COLLTUNE_CACHE_DIR="$T_TMP/cache"

# Every job here is root's, and the daemon knows it (the unix socket's
# SO_PEERCRED): one uid must be enough for online evidence to count.
ONE_UID=(--online-min-uids 1)
if ! start_daemon "$COLLTUNED" "$DB" "$SOCK" "${ONE_UID[@]}"; then
  fail "colltuned starts" "$(cat "$T_TMP/daemon.log")"
  finish; exit 1
fi
# Five launches that claim scatter-as-bcast is twice as fast as the library.
check "a wrong profile is seeded" run_openmpi -np 4 "$SEED" --server "$SERVER" \
  scatter:$SLOW:65536 scatter:$SLOW:1048576
at64k() {  # the table's algorithm for a 64 KiB scatter at 4 processes
  "$COLLTUNE_CLI" --server "$SERVER" table --comm-size 4 --format shim |
    awk '$1 == "scatter" && $2 <= 65536 && ($3 == "inf" || $3 >= 65536) { print $4 }'
}
check "the table picks the slow mock-up at 64 KiB" test "$(at64k)" = "$SLOW"

job() {  # the workload: 3000 scatters of 64 KiB blocks; prints us/call
  run_openmpi -np 4 -x LD_PRELOAD="$SHIM" -x COLLTUNE_SERVER="$SERVER" -x COLLTUNE_AGENT \
    -x COLLTUNE_CACHE_DIR -x COLLTUNE_SPOOL_DIR="$SPOOL" -x COLLTUNE_EXPLORE_MIN_CALLS=100 \
    -x COLLTUNE_VERBOSE=1 "$APP" --collectives scatter --bytes 65536 --iters 3000 2>&1
}
times=()
switched_after=0
for i in 1 2 3 4 5 6 7 8; do
  out=$(job)
  if [ $? -ne 0 ] || ! grep -q "results verified" <<<"$out"; then
    fail "workload job $i runs and verifies its results" "$out"
    break
  fi
  times+=("$(awk '$1 == "scatter" { print $4 }' <<<"$out")")
  grep -q "and sent to $SERVER" <<<"$out" || fail "job $i sends its report" "$out"
  if [ "$(at64k)" != "$SLOW" ]; then
    switched_after=$i
    break
  fi
done
echo "per-job us/call: ${times[*]}; table changed after job $switched_after"
# Back to default takes one job: its sampled calls of the table's choice and
# its explored calls of default ran in the same program, and default was
# faster by the mock-up's margin (daemon/engine.h, online evidence).
if [ "$switched_after" -eq 1 ]; then
  pass "one job's report takes the slow mock-up out of the table (here after job $switched_after)"
else
  fail "one job's report takes the slow mock-up out of the table" \
    "changed after job $switched_after; times ${times[*]}"
fi
check "... back to default, the library's own" test "$(at64k)" = default
check "the new decision is online evidence" grep -Eq \
  "^scatter +65536 +131071 +default .*" <<<"$("$COLLTUNE_CLI" --server "$SERVER" table --comm-size 4)"
check "history names the job that moved it" grep -q "online: job 'local:" \
  <<<"$("$COLLTUNE_CLI" --server "$SERVER" history --profile 1)"
now=$(at64k)
echo "the table now runs $now at 64 KiB"
# The time of the workload before (the jobs that ran the slow mock-up) and
# after (the better of two jobs: one job on a shared machine can be slow for
# reasons of its own).
after=""
for k in 1 2; do
  out=$(job)
  t=$(awk '$1 == "scatter" { print $4 }' <<<"$out")
  echo "after the change, job $k: $t us/call; $(grep 'ran mock-ups' <<<"$out")"
  if [ -z "$after" ] || python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$t" "$after"; then
    after=$t
  fi
done
before=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)" \
     "$before" "$after"; then
  pass "the workload's time drops once the table changed ($before -> $after us/call)"
else
  fail "the workload's time drops once the table changed" \
    "$before -> $after us/call with $now"
fi
check "the profile shows the online evidence" grep -q "online evidence" \
  <<<"$("$COLLTUNE_CLI" --server "$SERVER" profile 1)"

# Reports the daemon answered late are sent again by a detached agent
# (shim/runtime/report.h): the spool empties within seconds.
for _ in $(seq 200); do
  [ -z "$(ls "$SPOOL"/*.report 2>/dev/null)" ] && break
  sleep 0.1
done
check "every report so far has left the spool" test -z "$(ls "$SPOOL"/*.report 2>/dev/null)"
# The daemon down: the job is unharmed and its report waits in the spool.
stop_daemon
out=$(job)
if [ $? -eq 0 ] && grep -q "results verified" <<<"$out" && grep -q "not sent" <<<"$out"; then
  pass "with the daemon down the job runs and keeps its report"
else
  fail "with the daemon down the job runs and keeps its report" "$out"
fi
check "one report is spooled" test "$(ls "$SPOOL"/*.report | wc -l)" -eq 1
out=$("$COLLTUNE_CLI" --server "$SERVER" flush --spool-dir "$SPOOL" 2>&1)
check "flush with the daemon down keeps the report (exit 1)" \
  bash -c '[ "$1" != 0 ] && grep -q "1 kept" <<<"$2"' _ "$?" "$out"
start_daemon "$COLLTUNED" "$DB" "$SOCK" "${ONE_UID[@]}" || fail "colltuned restarts" "$(cat "$T_TMP/daemon.log")"
reports_before=$("$COLLTUNE_CLI" --server "$SERVER" profiles --json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["job_reports"])')
out=$("$COLLTUNE_CLI" --server "$SERVER" flush --spool-dir "$SPOOL" 2>&1)
check "colltune flush sends it once the daemon is back" grep -q "1 sent, 0 rejected, 0 kept" <<<"$out"
check "the spool is empty" test -z "$(ls "$SPOOL"/*.report 2>/dev/null)"
reports_after=$("$COLLTUNE_CLI" --server "$SERVER" profiles --json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["job_reports"])')
check "the daemon stored it" test "$reports_after" -eq $((reports_before + 1))

# A report left by an outage is sent by the next job.
stop_daemon
job >/dev/null
start_daemon "$COLLTUNED" "$DB" "$SOCK" "${ONE_UID[@]}" || fail "colltuned restarts" "$(cat "$T_TMP/daemon.log")"
out=$(job)
# The job sends its own report itself and leaves the earlier one to the
# agent, which it starts detached: wait for it (at most 20 s).
for _ in $(seq 200); do
  [ -z "$(ls "$SPOOL"/*.report 2>/dev/null)" ] && break
  sleep 0.1
done
check "the next job sends what an earlier one spooled" test -z "$(ls "$SPOOL"/*.report 2>/dev/null)"

# Hostile spool files: garbage, and a well-formed report whose histogram
# disagrees with its counts. Both are rejected with a reason, nothing else
# is touched.
printf 'not a report\n' > "$SPOOL/garbage.report"
cat > "$SPOOL/forged.report" <<'REPORT'
colltune-report 1
job forged
run forged-1
library Open MPI
library_version 4.1.4
comm_size 4
nodes 1
ppn 4
table_version 0
final 1
ranks 4
timing 4 0 scatter default 17 1000 1000 0 50000000 120 1 5
end
REPORT
out=$("$COLLTUNE_CLI" --server "$SERVER" flush --spool-dir "$SPOOL" 2>&1)
check "flush rejects both hostile files" grep -q "0 sent, 2 rejected, 0 kept" <<<"$out"
check "the reasons are kept next to them" bash -c \
  'grep -q "not a colltune report" "$1/rejected/garbage.report.why" &&
   grep -q "histogram counts 5" "$1/rejected/forged.report.why"' _ "$SPOOL"
check "the daemon still answers" "$COLLTUNE_CLI" --server "$SERVER" profiles

# A long job killed at its time limit still leaves evidence: rank 0 writes a
# snapshot every COLLTUNE_REPORT_INTERVAL seconds and a detached agent sends
# it; the job never reaches MPI_Finalize.
reports() {
  "$COLLTUNE_CLI" --server "$SERVER" profiles --json |
    python3 -c 'import json,sys; print(sum(p["job_reports"] for p in json.load(sys.stdin)))'
}
before=$(reports)
timeout -s KILL 5 mpirun.openmpi -np 4 -x LD_PRELOAD="$SHIM" -x COLLTUNE_SERVER="$SERVER" \
  -x COLLTUNE_AGENT -x COLLTUNE_CACHE_DIR -x COLLTUNE_SPOOL_DIR="$T_TMP/spool2" \
  -x COLLTUNE_REPORT_INTERVAL=1 "$APP" --collectives scatter --bytes 65536 \
  --iters 100000000 </dev/null >/dev/null 2>&1
for _ in $(seq 50); do
  [ "$(reports)" -gt "$before" ] && break
  sleep 0.2
done
check "a job killed before MPI_Finalize has sent a snapshot report" \
  test "$(reports)" -gt "$before"

# A long job explores at full rate for its first 64 bursts of a bucket, then
# at half the rate with every doubling (shim/runtime/explore_schedule.h):
# 40 000 calls explored at the highest setting run a few hundred bursts, not
# thousands; with exploring held back to the job's second half, that half
# still starts with its 64 full-rate bursts (4 timed calls each).
explored_per_rank() {  # explored_per_rank MIN_CALLS: a job's explored calls per rank
  local spool="$T_TMP/spool_long_$1"
  mkdir -p "$spool"
  run_openmpi -np 4 -x LD_PRELOAD="$SHIM" -x COLLTUNE_SPOOL_DIR="$spool" \
    -x COLLTUNE_SAMPLE=1 -x COLLTUNE_EXPLORE=1 -x COLLTUNE_EXPLORE_MIN_CALLS="$1" \
    "$APP" --collectives allreduce --bytes 8 --iters 40000 >/dev/null 2>&1
  awk '$1 == "ranks" { r = $2 } $1 == "timing" { e += $9 }
       END { print (r > 0 ? int(e / r) : -1) }' "$spool"/*.report 2>/dev/null || echo -1
}
long=$(explored_per_rank 0)
check "a 40 000-call job explores a few hundred bursts, not thousands ($long calls a rank)" \
  test "$long" -ge 256 -a "$long" -le 2000
late=$(explored_per_rank 20000)
check "exploring from call 20 000 on still starts at full rate ($late calls a rank)" \
  test "$late" -ge 256
finish
