#!/usr/bin/env bash
# Non-blocking, persistent and neighbourhood collectives are counted, not
# tuned: a job (counted_calls.c) makes a known number of MPI_Iallreduce,
# MPI_Ibcast, MPI_Ibarrier, MPI_Neighbor_alltoall, MPI_Ineighbor_allgather
# and MPI_Neighbor_alltoallv calls (and, under MPICH, MPI_Allreduce_init and
# MPI_Neighbor_alltoall_init requests started in loops), on a cartesian
# communicator and an inter-communicator too, checks every result, and prints
# its own counts summed over ranks. Under the shim with a real daemon, the
# counts `colltune jobs` shows for the job's report must equal the program's
# exactly, per collective and size bucket, under Open MPI and MPICH. The
# program's results are the same without the shim, and with
# COLLTUNE_DISABLE=1 nothing is reported.
#
# Args: colltuned colltune counted_calls_openmpi counted_calls_mpich
#       libcolltune.so libcolltune-mpich.so
source tests/lib/testlib.sh
COLLTUNED=$(abspath "$1")
COLLTUNE_CLI=$(abspath "$2")
APP_OMPI=$(abspath "$3")
APP_MPICH=$(abspath "$4")
SHIM_OMPI=$(abspath "$5")
SHIM_MPICH=$(abspath "$6")
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

check_library() {
  local label=$1 library=$2 launcher=$3 app=$4 shim=$5 env_flag=$6
  local plain out mine theirs before
  plain=$($launcher -np 4 "$app" 2>&1)
  check "$label: the job verifies its results without the shim" grep -q "results verified" <<<"$plain"
  if [ "$launcher" = run_openmpi ]; then
    out=$(run_openmpi -np 4 -x LD_PRELOAD="$shim" -x COLLTUNE_SERVER="$SERVER" -x COLLTUNE_AGENT \
      -x COLLTUNE_CACHE_DIR -x COLLTUNE_SPOOL_DIR="$T_TMP/spool" -x COLLTUNE_VERBOSE=1 "$app" 2>&1)
  else
    out=$(LD_PRELOAD="$shim" COLLTUNE_SERVER="$SERVER" COLLTUNE_SPOOL_DIR="$T_TMP/spool" \
      COLLTUNE_VERBOSE=1 run_mpich -np 4 "$app" 2>&1)
  fi
  check "$label: the job verifies its results under the shim" grep -q "results verified" <<<"$out"
  check "$label: the job sends its report" grep -q "and sent to $SERVER" <<<"$out"
  mine=$(own_counts "$out")
  theirs=$(reported "$library" counts)
  echo "$label: the program counted:"; sed 's/^/  /' <<<"$mine"
  echo "$label: colltune jobs shows:"; sed 's/^/  /' <<<"$theirs"
  if [ -n "$mine" ] && [ "$mine" = "$theirs" ]; then
    pass "$label: colltune jobs shows exactly the program's counts ($(wc -l <<<"$mine") cells)"
  else
    fail "$label: colltune jobs shows exactly the program's counts" \
      "$(diff <(echo "$mine") <(echo "$theirs"))"
  fi
  check "$label: the same counts under the shim as the plain run made" \
    test "$(own_counts "$plain")" = "$mine"
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

check_library "Open MPI" "Open MPI" run_openmpi "$APP_OMPI" "$SHIM_OMPI"
check_library "MPICH" "MPICH" run_mpich "$APP_MPICH" "$SHIM_MPICH"
check "MPICH: persistent collectives counted per initialization" bash -c '
  grep -qx "allreduce_init 64 4" <<<"$1" && grep -qx "neighbor_alltoall_init 8 4" <<<"$1"' _ \
  "$(reported "MPICH" counts)"
check "MPICH: persistent kinds" grep -qx "allreduce_init persistent 127" <<<"$(reported MPICH kinds)"
check "colltuned survived" kill -0 "$DAEMON_PID"
finish
