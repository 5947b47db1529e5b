#!/usr/bin/env bash
# Non-blocking, persistent and neighbourhood collectives are counted, not
# tuned: a job (counted_calls.c) makes a known number of MPI_Iallreduce,
# MPI_Ibcast, MPI_Ibarrier, MPI_Neighbor_alltoall, MPI_Ineighbor_allgather
# and MPI_Neighbor_alltoallv calls, persistent allreduce, neighbor_alltoall,
# barrier and bcast requests (MPICH: MPI_*_init; Open MPI 4.1: MPIX_*_init)
# started in loops with MPI_Start and MPI_Startall next to point-to-point
# persistent requests, on a cartesian communicator and an inter-communicator
# too, checks every result, and prints its own counts summed over ranks.
# counted_calls_f.F90 does the same from Fortran in its three bindings
# (mpif.h, use mpi, use mpi_f08), built here with each library's mpif90:
# Open MPI's Fortran routines call PMPI_* past the C wrappers, MPICH's mostly
# call the C MPI_* ones (no call may count twice). Under the shim with a real daemon, the
# counts `colltune jobs` shows for the job's report must equal the program's
# exactly, per collective and size bucket, under Open MPI and MPICH. The
# program's results are the same without the shim, and with
# COLLTUNE_DISABLE=1 nothing is reported.
#
# Args: colltuned colltune counted_calls_openmpi counted_calls_mpich
#       libcolltune.so libcolltune-mpich.so counted_calls_f.F90
source tests/lib/testlib.sh
args_as COLLTUNED COLLTUNE_CLI APP_OMPI APP_MPICH SHIM_OMPI SHIM_MPICH \
  FORTRAN_SRC -- "$@"
SOCK="$T_TMP/d.sock"
SERVER="unix:$SOCK"
export COLLTUNE_AGENT="$COLLTUNE_CLI" COLLTUNE_CACHE_DIR="$T_TMP/cache"

if ! start_daemon "$COLLTUNED" "$T_TMP/counted.db" "$SOCK"; then
  fail "colltuned starts" "$(cat "$T_TMP/daemon.log")"
  finish; exit 1
fi

# The job's newest report of library $1 as "name min_bytes calls" lines
# (sorted), and the kinds as "name kind".
reported() {
  local library=$1 what=$2
  "$COLLTUNE_CLI" --server "$SERVER" profiles --json | python3 -c '
import json, subprocess, sys
library, what, cli, server = sys.argv[1:5]
ids = [p["id"] for p in json.load(sys.stdin) if p["context"]["library"] == library]
newest = None
for i in ids:
    jobs = json.loads(subprocess.check_output([cli, "--server", server, "jobs", "--profile",
                                               str(i), "--json"]))
    for r in jobs["reports"]:
        if newest is None or r["id"] > newest["id"]:
            newest = r
for c in (newest or {}).get("counted", []):
    fields = ("collective", "min_bytes", "calls") if what == "counts" else ("collective", "kind", "max_bytes")
    print(" ".join(str(c[f]) for f in fields))
' "$library" "$what" "$COLLTUNE_CLI" "$SERVER" | sort
}

# The program's own "COUNT name bucket calls" lines as "name min_bytes calls".
own_counts() {
  awk '$1 == "COUNT" { min = $3 == 0 ? 0 : 2 ^ ($3 - 1); printf "%s %d %s\n", $2, min, $4 }' <<<"$1" | sort
}

jobs_total() {
  "$COLLTUNE_CLI" --server "$SERVER" profiles --json |
    python3 -c 'import json,sys; print(sum(p["job_reports"] for p in json.load(sys.stdin)))'
}
jobs_are() { test "$(jobs_total)" = "$1"; }
counts_are() { test -n "$1" && test "$1" = "$(reported "$2" counts)"; }  # COUNTS LIBRARY

# The output of job $3 on 4 processes launched by $1 (run_openmpi or
# run_mpich) under shim $2, reporting to the daemon (verbose, spooling in
# $T_TMP/spool).
run_shimmed() {
  local launcher=$1 shim=$2 app=$3
  if [ "$launcher" = run_openmpi ]; then
    run_openmpi -np 4 -x LD_PRELOAD="$shim" -x COLLTUNE_SERVER="$SERVER" -x COLLTUNE_AGENT \
      -x COLLTUNE_CACHE_DIR -x COLLTUNE_SPOOL_DIR="$T_TMP/spool" -x COLLTUNE_VERBOSE=1 "$app" 2>&1
  else
    LD_PRELOAD="$shim" COLLTUNE_SERVER="$SERVER" COLLTUNE_SPOOL_DIR="$T_TMP/spool" \
      COLLTUNE_VERBOSE=1 run_mpich -np 4 "$app" 2>&1
  fi
}

# Checks named $1: the shimmed job's output $3 says its results are right
# and its report sent, and the counts colltune jobs shows for library $2
# are exactly the program's own.
check_counts_reported() {
  local label=$1 library=$2 out=$3 mine theirs
  check "$label: the job verifies its results under the shim" grep -q "results verified" <<<"$out"
  check "$label: the job sends its report" grep -q "and sent to $SERVER" <<<"$out"
  mine=$(own_counts "$out")
  # A report whose answer came after MPI_Finalize stopped waiting is still
  # being stored (or sent again by the agent): wait for it, a minute at most.
  eventually counts_are "$mine" "$library"
  theirs=$(reported "$library" counts)
  echo "$label: the program counted:"; sed 's/^/  /' <<<"$mine"
  echo "$label: colltune jobs shows:"; sed 's/^/  /' <<<"$theirs"
  if [ -n "$mine" ] && [ "$mine" = "$theirs" ]; then
    pass "$label: colltune jobs shows exactly the program's counts ($(wc -l <<<"$mine") cells)"
  else
    fail "$label: colltune jobs shows exactly the program's counts" \
      "$(diff <(echo "$mine") <(echo "$theirs"))"
  fi
}

check_library() {
  local label=$1 library=$2 launcher=$3 app=$4 shim=$5 env_flag=$6
  local plain out before
  plain=$($launcher -np 4 "$app" 2>&1)
  check "$label: the job verifies its results without the shim" grep -q "results verified" <<<"$plain"
  out=$(run_shimmed "$launcher" "$shim" "$app")
  check_counts_reported "$label" "$library" "$out"
  check "$label: the same counts under the shim as the plain run made" \
    test "$(own_counts "$plain")" = "$(own_counts "$out")"
  check "$label: kinds and buckets as the contract names them" bash -c '
    grep -qx "iallreduce nonblocking 63" <<<"$1" && grep -qx "ibarrier nonblocking 0" <<<"$1" &&
    grep -qx "neighbor_alltoall neighborhood 15" <<<"$1" &&
    grep -qx "ineighbor_allgather neighborhood 7" <<<"$1" &&
    grep -qx "neighbor_alltoallv neighborhood 0" <<<"$1"' _ "$(reported "$library" kinds)"
  local plain_text
  plain_text=$("$COLLTUNE_CLI" --server "$SERVER" jobs --profile "$(
    "$COLLTUNE_CLI" --server "$SERVER" profiles --json |
      python3 -c 'import json,sys; print([p["id"] for p in json.load(sys.stdin) if p["context"]["library"] == sys.argv[1]][0])' "$library")")
  check "$label: colltune jobs (text) lists them" grep -q "counted, not tuned: .*iallreduce 36 (4-7 B: 8, 32-63 B: 28)" <<<"$plain_text"
  before=$(jobs_total)
  if [ "$launcher" = run_openmpi ]; then
    out=$(run_openmpi -np 4 -x LD_PRELOAD="$shim" -x COLLTUNE_SERVER="$SERVER" -x COLLTUNE_AGENT \
      -x COLLTUNE_CACHE_DIR -x COLLTUNE_DISABLE=1 "$app" 2>&1)
  else
    out=$(LD_PRELOAD="$shim" COLLTUNE_SERVER="$SERVER" COLLTUNE_DISABLE=1 run_mpich -np 4 "$app" 2>&1)
  fi
  check "$label: with COLLTUNE_DISABLE=1 the job runs and nothing is reported" bash -c \
    'grep -q "results verified" <<<"$1" && [ "$2" = "$3" ]' _ "$out" "$before" "$(jobs_total)"
}

# A Fortran job (binding $3 of counted_calls_f.F90) under library $1: its
# results, and the report's counts equal its own exactly.
check_fortran() {
  local lib=$1 library=$2 b=$3 app out label
  label="$library Fortran ${BINDING_NAME[$b]}"
  app="$T_TMP/counted_f_${lib}_$b"
  if [ ! -x "$app" ]; then
    fail "$label: built"
    return
  fi
  if [ "$lib" = openmpi ]; then
    out=$(run_shimmed run_openmpi "$SHIM_OMPI" "$app")
  else
    out=$(run_shimmed run_mpich "$SHIM_MPICH" "$app")
  fi
  check_counts_reported "$label" "$library" "$out"
}

check_library "Open MPI" "Open MPI" run_openmpi "$APP_OMPI" "$SHIM_OMPI"
check "Open MPI: MPIX_ persistent collectives counted per initialization and per start" bash -c '
  grep -qx "allreduce_init 64 4" <<<"$1" && grep -qx "allreduce_init_start 64 24" <<<"$1" &&
  grep -qx "neighbor_alltoall_init_start 8 12" <<<"$1" && grep -qx "bcast_init_start 64 16" <<<"$1" &&
  grep -qx "barrier_init_start 0 16" <<<"$1"' _ "$(reported "Open MPI" counts)"
check_library "MPICH" "MPICH" run_mpich "$APP_MPICH" "$SHIM_MPICH"
check "MPICH: persistent collectives counted per initialization and per start" bash -c '
  grep -qx "allreduce_init 64 4" <<<"$1" && grep -qx "neighbor_alltoall_init 8 4" <<<"$1" &&
  grep -qx "allreduce_init_start 64 24" <<<"$1" && grep -qx "neighbor_alltoall_init_start 8 12" <<<"$1" &&
  grep -qx "bcast_init_start 64 16" <<<"$1" && grep -qx "barrier_init_start 0 16" <<<"$1"' _ \
  "$(reported "MPICH" counts)"
check "MPICH: persistent kinds" bash -c '
  grep -qx "allreduce_init persistent 127" <<<"$1" &&
  grep -qx "allreduce_init_start persistent 127" <<<"$1" &&
  grep -qx "neighbor_alltoall_init_start neighborhood 15" <<<"$1"' _ "$(reported MPICH kinds)"

# Fortran, three bindings, both libraries.
BINDING_NAME=([1]="mpif.h" [2]="use mpi" [3]="use mpi_f08")
for lib in openmpi mpich; do
  defs=()
  [ "$lib" = openmpi ] && defs=(-DOMPI)
  for b in 1 2 3; do
    if ! out=$("mpif90.$lib" -cpp -O1 -fallow-argument-mismatch -DBINDING=$b "${defs[@]}" \
               "$FORTRAN_SRC" -o "$T_TMP/counted_f_${lib}_$b" 2>&1); then
      fail "build counted_calls_f.F90 ($lib, binding $b)" "$out"
    fi
  done
done
out=$(run_openmpi -np 4 "$T_TMP/counted_f_openmpi_3" 2>&1)
check "Open MPI Fortran use mpi_f08: the job verifies its results without the shim" \
  grep -q "results verified" <<<"$out"
for b in 1 2 3; do
  check_fortran openmpi "Open MPI" $b
  check_fortran mpich "MPICH" $b
done
# The report at MPI_Finalize goes out with the shim's own gRPC call, after
# PMPI_Finalize: no agent is needed (none exists here), and a sent report
# leaves the spool.
for lib in openmpi mpich; do
  before=$(jobs_total)
  rm -rf "$T_TMP/direct"
  if [ "$lib" = openmpi ]; then
    out=$(run_openmpi -np 4 -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_SERVER="$SERVER" \
      -x COLLTUNE_AGENT="$T_TMP/no-such-agent" -x COLLTUNE_SPOOL_DIR="$T_TMP/direct" \
      -x COLLTUNE_VERBOSE=1 "$APP_OMPI" 2>&1)
  else
    out=$(LD_PRELOAD="$SHIM_MPICH" COLLTUNE_SERVER="$SERVER" COLLTUNE_AGENT="$T_TMP/no-such-agent" \
      COLLTUNE_SPOOL_DIR="$T_TMP/direct" COLLTUNE_VERBOSE=1 run_mpich -np 4 "$APP_MPICH" 2>&1)
  fi
  # MPI_Finalize waits a few milliseconds for the daemon's answer
  # (shim/runtime/report.h). Under load the answer comes later: the daemon
  # may or may not have stored the report (closing the connection can cancel
  # the call), so the spool keeps it and the agent sends it again. Here no
  # agent exists: the report must then still be spooled, and `colltune
  # flush` (what the agent runs) delivers it; a resent report replaces the
  # first, so the job is counted once either way.
  spooled=$(ls "$T_TMP/direct"/*.report 2>/dev/null)
  late=""
  if grep -q "and sent to $SERVER (no answer within" <<<"$out"; then
    late=" (answered late; flushed from the spool)"
    [ -n "$spooled" ] &&
      "$COLLTUNE_CLI" --server "$SERVER" flush --spool-dir "$T_TMP/direct" >/dev/null 2>&1 &&
      spooled=$(ls "$T_TMP/direct"/*.report 2>/dev/null)
  fi
  eventually jobs_are $((before + 1))
  if [ "$(jobs_total)" = $((before + 1)) ] && grep -q "and sent to $SERVER" <<<"$out" &&
     [ -z "$spooled" ]; then
    pass "$lib: the shim sends the final report itself, without an agent, and it leaves the spool$late"
  else
    fail "$lib: the shim sends the final report itself, without an agent, and it leaves the spool" \
      "jobs $before -> $(jobs_total); spool: $(ls "$T_TMP/direct" 2>&1)"$'\n'"$out"
  fi
done
# A daemon that answers late (stopped here for the whole job) loses nothing:
# the shim gives up waiting after a few milliseconds, the report stays in the
# spool, and `colltune flush`, what the agent runs, delivers it.
before=$(jobs_total)
rm -rf "$T_TMP/late"
kill -STOP "$DAEMON_PID"
out=$(run_openmpi -np 4 -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_SERVER="$SERVER" \
  -x COLLTUNE_AGENT="$T_TMP/no-such-agent" -x COLLTUNE_SPOOL_DIR="$T_TMP/late" \
  -x COLLTUNE_VERBOSE=1 "$APP_OMPI" 2>&1)
kill -CONT "$DAEMON_PID"
check "a daemon that does not answer in time: the job still verifies its results" \
  grep -q "results verified" <<<"$out"
check "a daemon that does not answer in time: the report stays in the spool" \
  bash -c 'ls "$1"/*.report' _ "$T_TMP/late"
"$COLLTUNE_CLI" --server "$SERVER" flush --spool-dir "$T_TMP/late" >/dev/null 2>&1
eventually jobs_are $((before + 1))
check "a daemon that does not answer in time: colltune flush delivers the report, once" \
  jobs_are $((before + 1))
check "colltuned survived" kill -0 "$DAEMON_PID"
finish
