#!/usr/bin/env bash
# colltune under a real Slurm (Debian's slurm-wlm, one node, run as plain
# processes with a private munged: tests/lib/slurm.sh) and a real colltuned:
#   a. jobs started with srun (--mpi=pmix for Open MPI, --mpi=pmi2 for
#      MPICH) with the shim preloaded fetch their table from the daemon, run
#      its decisions, verify their results and report to the daemon;
#   b. `colltune campaign --launcher slurm` stores the same grid and gives a
#      table of the same shape as the same campaign through mpirun; `colltune
#      evaluate --launcher slurm` prints its report;
#   c. a campaign whose job is scancel'ed while it runs fails clearly, and
#      the same command resumes it from what was stored;
#   d. bad input: an unknown launcher, no sbatch on PATH, a partition that
#      does not exist, srun's PMI that does not fit the MPI library;
#   e. a job past its time limit and a job on a node that goes down are
#      reported as such, with their job ids.
#
# Args: colltuned colltune colltune-bench colltune-bench-mpich
#       seed_profile seed_profile_mpich collective_mix collective_mix_mpich
#       libcolltune.so libcolltune-mpich.so
source tests/lib/testlib.sh
source tests/lib/slurm.sh
args_as COLLTUNED COLLTUNE_CLI BENCH BENCH_MPICH SEED SEED_MPICH APP \
  APP_MPICH SHIM SHIM_MPICH -- "$@"
SOCK="$T_TMP/d.sock"
SERVER="unix:$SOCK"
CT=("$COLLTUNE_CLI" --server "$SERVER")
JOBS="$T_TMP/jobs"
mkdir -p "$JOBS"
SLURM_CAMPAIGN=(--launcher slurm --job-dir "$JOBS" --np 2 --bench "$BENCH")
export COLLTUNE_AGENT="$COLLTUNE_CLI" COLLTUNE_CACHE_DIR="$T_TMP/cache"
T_START=$(date +%s)

# Everything stops at the end, also when a check fails or the script dies.
trap 'stop_slurm; stop_munge; _t_cleanup' EXIT

# Check $1: CMD... (run in this shell, its output in LOG) succeeds; without
# it the test cannot go on.
start_or_stop() {  # NAME LOG CMD...
  local name=$1 log=$2
  shift 2
  if "$@" >"$log" 2>&1; then
    pass "$name"
  else
    fail "$name" "$(cat "$log")"
    finish; exit 1
  fi
}

start_or_stop "a private munged starts on its own socket" "$T_TMP/munge.out" start_munge "$T_TMP"
check "MUNGE_SOCKET is exported, under the test's directory, not /run/munge" \
  bash -c '[ "$MUNGE_SOCKET" = "$1/munge/munge.sock" ] && [ -S "$MUNGE_SOCKET" ]' _ "$T_TMP"
start_or_stop "slurmctld and slurmd start, srun runs a job" "$T_TMP/slurm.out" \
  start_slurm "$T_TMP"
check "the cluster has one idle node with 4 CPUs" \
  bash -c '[ "$(sinfo -h -N -o "%t %c")" = "idle 4" ]'
if ! start_daemon "$COLLTUNED" "$T_TMP/c.db" "$SOCK"; then
  fail "colltuned starts" "$(cat "$T_TMP/daemon.log")"
  finish; exit 1
fi

# Every srun gets a time limit (srun's own --time is in minutes, too coarse).
run_srun() { timeout -k 5 120 srun "$@" </dev/null; }

# Stored points of a cluster name, from the profile summaries.
stored_points() {
  "${CT[@]}" profiles --cluster "$1" --json |
    python3 -c 'import json,sys; print(sum(p["measurements"] for p in json.load(sys.stdin)))'
}
profile_of() {
  "${CT[@]}" profiles --cluster "$1" --json |
    python3 -c 'import json,sys; p = json.load(sys.stdin); print(p[0]["id"] if p else "")'
}
# The newest job report of a library: "job_id ranks".
newest_report() {
  "${CT[@]}" profiles --json | python3 -c '
import json, subprocess, sys
library, cli, server = sys.argv[1:4]
newest = None
for p in json.load(sys.stdin):
    if p["context"]["library"] != library:
        continue
    jobs = json.loads(subprocess.check_output([cli, "--server", server, "jobs", "--profile",
                                               str(p["id"]), "--json"]))
    for r in jobs["reports"]:
        if newest is None or r["id"] > newest["id"]:
            newest = r
print(newest["job_id"], newest["ranks"]) if newest else print("none")
' "$1" "$COLLTUNE_CLI" "$SERVER"
}

# --- a. The shim in jobs started by srun --------------------------------------
# Deterministic profiles (tests/e2e/seed_profile.cc), uploaded from jobs
# started by srun so that their context is the srun job's: at 4 Open MPI
# processes allreduce uses reduce+bcast from 64 KiB, gather uses gatherv; at
# 2 MPICH processes bcast uses scatter+allgather at 1 KiB.
out=$(run_srun --mpi=pmix -n 4 "$SEED" --server "$SERVER" \
      allreduce:allreduce_as_reduce_bcast:65536 allreduce:allreduce_as_reduce_bcast:1048576 \
      gather:gather_as_gatherv:8 gather:gather_as_gatherv:1024 \
      gather:gather_as_gatherv:65536 gather:gather_as_gatherv:1048576 2>&1)
check "Open MPI: a profile is seeded from srun --mpi=pmix" grep -q "seeded" <<<"$out"
out=$(run_srun --mpi=pmi2 -n 2 "$SEED_MPICH" --server "$SERVER" \
      bcast:bcast_as_scatter_allgather:1024 2>&1)
check "MPICH: a profile is seeded from srun --mpi=pmi2" grep -q "seeded" <<<"$out"

# A job script's way: the shim and the daemon's address in the environment
# srun passes on (srun itself is preloaded too, which must be harmless).
# The node claims 4 CPUs on a 2-core machine: Open MPI started by srun does
# not know it is oversubscribed (mpirun tells it) and busy-polls, 20-80 ms
# per 64 KiB allreduce instead of 1.6-3.6 ms, starving rank 0's agent past its
# deadline; yield_when_idle is what mpirun sets there. The deadline is raised
# too: these checks are about where the table comes from, not how fast.
shim_job() {  # LIBRARY_SHIM PMI NP APP ARGS...
  local shim=$1 pmi=$2 np=$3
  shift 3
  (export LD_PRELOAD="$shim" COLLTUNE_SERVER="$SERVER" COLLTUNE_VERBOSE=2
   export COLLTUNE_TIMEOUT_MS=3000 OMPI_MCA_mpi_yield_when_idle=1
   run_srun --mpi="$pmi" -n "$np" "$@" 2>&1)
}
# The job (shim_job's arguments after $1) into $out, its first lines shown,
# and checks named from $1: it ends well and its shim fetched the table.
run_shim_job() {  # LABEL LIBRARY_SHIM PMI NP APP ARGS...
  local label=$1 rc
  shift
  out=$(shim_job "$@")
  rc=$?
  echo "$out" | grep -v "^ " | head -n 20
  check "$label: the job ends well" test "$rc" -eq 0
  check "... its shim fetched the table from the daemon" grep -q "table from daemon $SERVER" <<<"$out"
}
run_shim_job "Open MPI under srun --mpi=pmix" \
  "$SHIM" pmix 4 "$APP" --collectives allreduce,gather,bcast --bytes 65536 --iters 20
check "... all 4 processes are one job and run the daemon's decisions" \
  bash -c 'grep -q "allreduce on a communicator of 4 processes runs allreduce_as_reduce_bcast" <<<"$1" &&
           grep -q "gather on a communicator of 4 processes runs gather_as_gatherv" <<<"$1" &&
           ! grep -q "bcast_as" <<<"$1"' _ "$out"
check "... its results are right" grep -q "results verified" <<<"$out"
report=$(newest_report "Open MPI")
check "... its report reached the daemon with Slurm's job id and 4 ranks" \
  bash -c '[[ "$1" =~ ^slurm:([0-9]+)\ 4$ ]] &&
           scontrol show job -o "${BASH_REMATCH[1]}" | grep -q "JobName=$(basename "$2")"' \
  _ "$report" "$APP"

run_shim_job "MPICH under srun --mpi=pmi2" \
  "$SHIM_MPICH" pmi2 2 "$APP_MPICH" --collectives bcast,allreduce --bytes 1024 --iters 5
check "... both processes are one job and run the daemon's decision" \
  bash -c 'grep -q "bcast on a communicator of 2 processes runs bcast_as_scatter_allgather" <<<"$1" &&
           ! grep -q "runs allreduce_as" <<<"$1"' _ "$out"
check "... its results are right" grep -q "results verified" <<<"$out"
report=$(newest_report "MPICH")
check "... its report reached the daemon with Slurm's job id and 2 ranks" \
  bash -c '[[ "$1" =~ ^slurm:[0-9]+\ 2$ ]]' _ "$report"

# --- e, started now. A launch that outlives its time limit (--time 1: one
# minute; Slurm looks every 30 s). The "benchmark" only sleeps, on one CPU,
# so the 4-process jobs above are done and the rest of the test runs beside it.
printf '#!/bin/sh\ntouch "%s/started.$SLURM_JOB_ID"\nexec sleep 600\n' "$T_TMP" >"$T_TMP/sleeper"
chmod +x "$T_TMP/sleeper"
"${CT[@]}" campaign --validate 0 --launcher slurm --job-dir "$JOBS" --np 1 --bench "$T_TMP/sleeper" \
  --launches 1 --name overtime --time 1 </dev/null >"$T_TMP/overtime.out" 2>&1 &
overtime_pid=$!

# --- b. A campaign through Slurm and the same through mpirun --------------------
GRID=(--collectives allreduce,scatter --sizes 8,1K,64K --nrep 10 --quiet)
t=$(date +%s)
out=$(timeout 300 "${CT[@]}" campaign --validate 0 "${SLURM_CAMPAIGN[@]}" --launches 2 --name viaslurm \
      --cluster viaslurm --log-dir "$T_TMP" -- "${GRID[@]}" </dev/null 2>&1)
rc=$?
echo "campaign through Slurm: $(( $(date +%s) - t )) s"
if [ $rc -eq 0 ] && grep -q "campaign 'viaslurm': 2 launches on 2 processes" <<<"$out"; then
  pass "colltune campaign --launcher slurm runs its launches as Slurm jobs"
else
  fail "colltune campaign --launcher slurm runs its launches as Slurm jobs" "rc=$rc"$'\n'"$out"
fi
check "each launch is a batch job that ran srun --mpi=pmix with 2 tasks" bash -c '
  [ "$(grep -c "Slurm job [0-9]* COMPLETED" <<<"$1")" -eq 2 ] &&
  grep -q "^.srun. .--mpi=pmix. .--ntasks=2." "$2/viaslurm-launch-1.sh"' _ "$out" "$JOBS"
check "each launch's medians reach --log-dir" grep -q "^allreduce " "$T_TMP/viaslurm-launch-1.txt"
out=$(timeout 300 "${CT[@]}" campaign --validate 0 --np 2 --mpirun mpirun.openmpi --bench "$BENCH" \
      --launches 2 --name viampirun --cluster viampirun -- "${GRID[@]}" </dev/null 2>&1)
check "the same campaign through mpirun" test $? -eq 0
# Shape: the same context but for the cluster name, the same measured grid
# (collective, algorithm, size, launches), and tables with the same
# collectives whose rows cover every size, 0 to inf, without gaps.
shape() {
  local id
  id=$(profile_of "$1")
  "${CT[@]}" profiles --cluster "$1" --json | python3 -c '
import json, sys
p = json.load(sys.stdin)[0]
c = p["context"]
print("context", c["library"], c["library_version"], c["comm_size"], c["nodes"], c["ppn"],
      "launches", p["launches"], "measurements", p["measurements"])'
  # The points table only: it ends at the first blank line (the campaign
  # launches, named and timed differently, follow). Its synchronized points:
  # which candidates are also timed in the other regimes depends on how
  # they fared in each campaign.
  "${CT[@]}" profile "$id" |
    awk 'NR > 2 && NF == 0 { exit } NR > 2 && $NF == "sync" { print "point", $1, $2, $3, $4 }' | sort
}
table_shape() {
  "${CT[@]}" table --cluster "$1" --comm-size 2 --format shim | python3 -c '
import sys
rows = {}
for line in sys.stdin:
    f = line.split()
    if len(f) >= 4 and not line.startswith(("colltune-table", "section")):
        rows.setdefault(f[0], []).append((f[1], f[2]))
for coll, ranges in sorted(rows.items()):
    ok = ranges[0][0] == "0" and ranges[-1][1] == "inf" and all(
        int(a[1]) + 1 == int(b[0]) for a, b in zip(ranges, ranges[1:]))
    print(coll, "covers 0..inf" if ok else "GAP %s" % ranges)'
}
slurm_shape=$(shape viaslurm)
mpirun_shape=$(shape viampirun)
if [ "$(wc -l <<<"$slurm_shape")" -gt 10 ] && [ "$slurm_shape" = "$mpirun_shape" ]; then
  pass "Slurm's and mpirun's campaigns store the same grid in the same context ($(grep -c ^point <<<"$slurm_shape") points)"
else
  fail "Slurm's and mpirun's campaigns store the same grid in the same context" \
    "$(diff <(echo "$slurm_shape") <(echo "$mpirun_shape"))"
fi
slurm_table=$(table_shape viaslurm)
mpirun_table=$(table_shape viampirun)
if [ "$slurm_table" = $'allreduce covers 0..inf\nscatter covers 0..inf' ] &&
   [ "$slurm_table" = "$mpirun_table" ]; then
  pass "their tables have the same collectives, each covering every size"
else
  fail "their tables have the same collectives, each covering every size" \
    "slurm:"$'\n'"$slurm_table"$'\n'"mpirun:"$'\n'"$mpirun_table"
fi

out=$(timeout 300 "${CT[@]}" evaluate "${SLURM_CAMPAIGN[@]}" --cluster viaslurm -- \
      --collectives allreduce --sizes 8,1K --nrep 10 </dev/null 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -Eq "^evaluate: 2 points, 2 processes on 1 node \(1 x 2\), " <<<"$out" &&
   grep -q "Slurm job [0-9]* COMPLETED" <<<"$out"; then
  pass "colltune evaluate --launcher slurm runs the evaluation as a Slurm job and prints its report"
else
  fail "colltune evaluate --launcher slurm runs the evaluation as a Slurm job and prints its report" \
    "rc=$rc"$'\n'"$out"
fi

# Two evaluation jobs: their points come back through --job-dir.
out=$(timeout 300 "${CT[@]}" evaluate "${SLURM_CAMPAIGN[@]}" --launches 2 --cluster viaslurm -- \
      --collectives allreduce --sizes 8,1K --nrep 10 </dev/null 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -Eq "^evaluate: 2 points, 2 processes on 1 node \(1 x 2\), 2 launches" <<<"$out" &&
   [ "$(grep -c "Slurm job [0-9]* COMPLETED" <<<"$out")" -eq 2 ]; then
  pass "colltune evaluate --launcher slurm --launches 2 combines two Slurm jobs"
else
  fail "colltune evaluate --launcher slurm --launches 2 combines two Slurm jobs" "rc=$rc"$'\n'"$out"
fi

# A held-out validation of the Slurm campaign's table, as Slurm jobs.
out=$(timeout 300 "${CT[@]}" validate "${SLURM_CAMPAIGN[@]}" --cluster viaslurm --name slurmcheck \
      -- "${GRID[@]}" </dev/null 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q "held-out validation 'slurmcheck': 3 launches on 2 processes" <<<"$out" &&
   [ "$(grep -c "Slurm job [0-9]* COMPLETED" <<<"$out")" -eq 3 ] &&
   [ "$(grep -Ec "held-out validation: ([0-9]+ points where|the table runs default at every point)" \
        <<<"$out")" -eq 3 ]; then
  pass "colltune validate --launcher slurm runs three held-out launches as Slurm jobs"
else
  fail "colltune validate --launcher slurm runs three held-out launches as Slurm jobs" \
    "rc=$rc"$'\n'"$out"
fi

# --- c. A job cancelled mid-campaign, then resumed ----------------------------
# Six collectives of about 2 s each: the job is cancelled once the first ones
# are stored, while it runs.
LONG=(--collectives allgather,allreduce,alltoall,bcast,gather,reduce --sizes 8,64K,1M
      --nrep 150 --early-stop 0 --quiet)
"${CT[@]}" campaign --validate 0 "${SLURM_CAMPAIGN[@]}" --launches 1 --name cancelled --cluster cancelled \
  -- "${LONG[@]}" </dev/null >"$T_TMP/cancelled.out" 2>&1 &
campaign_pid=$!
job="" state="" stored=0
for i in $(seq 1 300); do
  [ -n "$job" ] || job=$(squeue -h -n colltune-cancelled-launch-0 -o %i 2>/dev/null)
  [ -n "$job" ] && state=$(squeue -h -j "$job" -o %T 2>/dev/null)
  stored=$(stored_points cancelled 2>/dev/null || echo 0)
  if [ "$state" = RUNNING ] && [ "${stored:-0}" -gt 0 ]; then break; fi
  kill -0 "$campaign_pid" 2>/dev/null || break
  sleep 0.1
done
if [ "$state" = RUNNING ] && [ "${stored:-0}" -gt 0 ]; then
  pass "the campaign's job runs and has stored points ($stored) before it is cancelled"
else
  fail "the campaign's job runs and has stored points before it is cancelled" \
    "job=$job state=$state stored=$stored"$'\n'"$(cat "$T_TMP/cancelled.out")"
fi
scancel "$job"
timeout 60 tail --pid="$campaign_pid" -f /dev/null
wait "$campaign_pid"
rc=$?
out=$(cat "$T_TMP/cancelled.out")
echo "$out" | tail -n 4
check "the cancelled campaign exits non-zero" test "$rc" -ne 0
check "... and says that Slurm job $job was cancelled, and how to resume" bash -c '
  grep -q "launch 1/1 failed after .*: Slurm job $2 was cancelled" <<<"$1" &&
  grep -q "campaign .cancelled. incomplete .* --name cancelled to resume" <<<"$1"' _ "$out" "$job"
check "Slurm knows the job as CANCELLED" \
  bash -c 'scontrol show job -o "$1" | grep -q "JobState=CANCELLED"' _ "$job"
kept=$(stored_points cancelled)
# Under mpirun the same grid has this many points: what a complete campaign stores.
full=$(expected_points "$(timeout 60 mpirun.openmpi -np 2 "$BENCH" --list-algorithms 2>/dev/null)" \
  allgather,allreduce,alltoall,bcast,gather,reduce "8 65536 1048576")
check "the cancelled job kept part of the campaign ($kept of $full points)" \
  test "$kept" -gt 0 -a "$kept" -lt "$full"
out=$(timeout 300 "${CT[@]}" campaign --validate 0 "${SLURM_CAMPAIGN[@]}" --launches 1 --name cancelled \
      --cluster cancelled -- "${LONG[@]}" </dev/null 2>&1)
rc=$?
skipped=$(grep -o "[0-9]* already stored were skipped" <<<"$out" | awk '{print $1}')
check "the same command resumes the campaign and completes it" \
  bash -c '[ "$1" -eq 0 ] && grep -q "campaign .cancelled.: 1 launches on 2 processes" <<<"$2"' _ "$rc" "$out"
check "... without measuring again what was stored ($skipped skipped, $kept were kept)" \
  test "${skipped:-0}" -gt 0 -a "${skipped:-0}" -eq "$kept"
check "... and the profile ends complete, nothing stored twice" \
  test "$(stored_points cancelled)" -eq "$full"

# --- d. Bad input ------------------------------------------------------------
expect_fail "an unknown launcher is refused" "--launcher: .*pbs.* not in \{mpirun,slurm\}" \
  "${CT[@]}" campaign --validate 0 --np 2 --launcher pbs --bench "$BENCH"
mkdir -p "$T_TMP/nobin"
expect_fail "without sbatch on PATH, --launcher slurm says so before any job" \
  "needs sbatch on PATH" \
  env PATH="$T_TMP/nobin" "${CT[@]}" campaign --validate 0 "${SLURM_CAMPAIGN[@]}" --launches 1 --name nosbatch
expect_fail "a partition that does not exist: sbatch's refusal is reported" \
  "launch 1/1 failed .*sbatch refused the job.*Invalid partition name" \
  "${CT[@]}" campaign --validate 0 "${SLURM_CAMPAIGN[@]}" --launches 1 --name nopart --partition nosuchpart \
  -- "${GRID[@]}"
expect_fail "evaluate: the same for a partition that does not exist" \
  "evaluation failed: sbatch refused the job.*Invalid partition name" \
  "${CT[@]}" evaluate "${SLURM_CAMPAIGN[@]}" --partition nosuchpart
out=$("${CT[@]}" campaign --validate 0 --launcher slurm --job-dir "$JOBS" --np 2 --mpi mpich --srun-mpi pmix \
      --bench "$BENCH_MPICH" --launches 1 --name singletons --cluster singletons -- "${GRID[@]}" \
      </dev/null 2>&1)
rc=$?
check "MPICH under srun --mpi=pmix (singletons) is caught, not measured" bash -c '
  [ "$1" -ne 0 ] && grep -q "has 1 process in MPI_COMM_WORLD, not the 2 expected" <<<"$2" &&
  grep -q "launch 1/1 failed .*Slurm job [0-9]* failed: exit code 3" <<<"$2"' _ "$rc" "$out"
check "... and stores nothing" test "$(stored_points singletons)" -eq 0
expect_fail "a time limit sbatch cannot read is reported" \
  "sbatch refused the job.*Invalid --time" \
  "${CT[@]}" campaign --validate 0 "${SLURM_CAMPAIGN[@]}" --launches 1 --name badtime --time soon -- "${GRID[@]}"

# --- e. Time limit and node failure ---------------------------------------------
t=$(date +%s)
timeout 240 tail --pid="$overtime_pid" -f /dev/null
wait "$overtime_pid"
rc=$?
out=$(cat "$T_TMP/overtime.out")
echo "time limit: colltune returned $(( $(date +%s) - t )) s after the other checks:"
echo "$out" | tail -n 2
check "a launch past its time limit fails, naming the job and its limit" bash -c '
  [ "$1" -ne 0 ] &&
  grep -q "launch 1/1 failed .*Slurm job [0-9]* reached its time limit (TimeLimit=00:01:00" <<<"$2" &&
  grep -q "run the same command with --name overtime to resume" <<<"$2"' _ "$rc" "$out"
# A node that goes down under a running job (the administrator's way: the
# controller treats it as a node failure). --no-requeue: else Slurm puts the
# job back in the queue.
"${CT[@]}" campaign --validate 0 --launcher slurm --job-dir "$JOBS" --np 1 --bench "$T_TMP/sleeper" \
  --launches 1 --name nodefail --sbatch-args="--no-requeue" \
  </dev/null >"$T_TMP/nodefail.out" 2>&1 &
nodefail_pid=$!
# Down only once the step runs: a step still being set up when its node goes
# down hangs in this Slurm (22.05) until slurmd is killed.
job=""
for i in $(seq 1 300); do
  [ -n "$job" ] || job=$(squeue -h -n colltune-nodefail-launch-0 -o %i 2>/dev/null)
  [ -n "$job" ] && [ -e "$T_TMP/started.$job" ] && break
  sleep 0.1
done
check "the job on the node that goes down was running" test -e "$T_TMP/started.$job"
scontrol update nodename="$(hostname -s)" state=down reason=slurm_test
timeout 60 tail --pid="$nodefail_pid" -f /dev/null
wait "$nodefail_pid"
rc=$?
out=$(cat "$T_TMP/nodefail.out")
echo "$out" | tail -n 2
check "a launch whose node goes down fails as a node failure, naming the job" bash -c '
  [ "$1" -ne 0 ] && [ -n "$3" ] &&
  grep -q "launch 1/1 failed .*Slurm job $3 ended by a node failure (NODE_FAIL" <<<"$2"' \
  _ "$rc" "$out" "$job"

# srun exits 0 when it could start no task (here: a stale PMIx directory of
# the next job ids, as a step that crashed leaves behind); the batch script
# catches it (task 0 leaves a mark) and the launch fails.
for i in 1 2 3; do mkdir -p "$SLURM_DIR/tmp/spmix_appdir_$(id -u)_$(( job + i )).0"; done
out=$("${CT[@]}" campaign --validate 0 "${SLURM_CAMPAIGN[@]}" --launches 1 --name notask --cluster notask \
      -- "${GRID[@]}" </dev/null 2>&1)
rc=$?
check "a job whose srun started no task fails, though srun exited 0" bash -c '
  [ "$1" -ne 0 ] && grep -q "launch failed" <<<"$2" &&
  grep -q "srun exited 0 but started no task of the job" <<<"$2" &&
  grep -q "launch 1/1 failed .*Slurm job [0-9]* failed: exit code 97" <<<"$2"' _ "$rc" "$out"

echo "slurm_test: $(( $(date +%s) - T_START )) s"
finish
