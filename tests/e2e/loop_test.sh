#!/usr/bin/env bash
# The whole loop, for real: colltuned on a fresh SQLite file, colltune-bench
# under mpirun uploading a campaign, the decision table through the CLI, and a
# job whose shim fetches that table at MPI_Init (through the agent) and runs
# the chosen algorithm, under Open MPI and MPICH; then a daemon restart.
#
# Args: colltuned colltune colltune-bench seed_profile seed_profile_mpich
#       collective_mix collective_mix_mpich libcolltune.so libcolltune-mpich.so
source tests/lib/testlib.sh
args_as COLLTUNED COLLTUNE_CLI BENCH SEED SEED_MPICH APP APP_MPICH SHIM \
  SHIM_MPICH -- "$@"
SOCK="$T_TMP/d.sock"
SERVER="unix:$SOCK"
DB="$T_TMP/colltune.db"
export COLLTUNE_AGENT="$COLLTUNE_CLI" COLLTUNE_CACHE_DIR="$T_TMP/cache"

if start_daemon "$COLLTUNED" "$DB" "$SOCK"; then
  pass "colltuned starts on a new database"
else
  fail "colltuned starts on a new database" "$(cat "$T_TMP/daemon.log")"
  finish; exit 1
fi

# A real campaign, small: two collectives, two sizes. Under a cluster name of
# its own, so its noisy timings stay out of the deterministic profile below.
# Every algorithm of the two collectives, default included, at both sizes:
points=$(expected_points "$(run_openmpi -np 1 "$BENCH" --list-algorithms 2>/dev/null)" \
         allreduce,bcast "64 65536")
check "every algorithm colltune knows for Open MPI is offered ($points points)" test "$points" -eq \
  "$(( 2 * $("$COLLTUNE_CLI" algorithms --library "Open MPI" | awk '($1 == "allreduce" || $1 == "bcast") && $2 !~ /_seg[0-9]+k$/ && $3 != "job" && $3 !~ /^DGL/' | wc -l) + \
      $("$COLLTUNE_CLI" algorithms --library "Open MPI" | awk '($1 == "allreduce" || $1 == "bcast") && $2 ~ /_seg16k$/' | wc -l) ))"
out=$(run_openmpi -np 4 "$BENCH" --server "$SERVER" --cluster realbench \
      --collectives allreduce,bcast --sizes 64,64K --nrep 10 --quiet 2>&1)
if [ $? -eq 0 ] && grep -q "uploaded $points points" <<<"$out"; then
  pass "colltune-bench measures and uploads a campaign"
else
  fail "colltune-bench measures and uploads a campaign" "$out"
fi
out=$("$COLLTUNE_CLI" --server "$SERVER" profiles 2>&1)
if grep -Eq "realbench +Open MPI +[0-9.]+ +4 +1 +4 +1 x 4 +1 +$points " <<<"$out"; then
  pass "the campaign is a stored profile"
else
  fail "the campaign is a stored profile" "$out"
fi
out=$("$COLLTUNE_CLI" --server "$SERVER" table --cluster realbench --comm-size 4 2>&1)
if grep -q "^allreduce " <<<"$out" && grep -q "^bcast " <<<"$out"; then
  pass "colltune table prints the campaign's decisions"
else
  fail "colltune table prints the campaign's decisions" "$out"
fi

# A profile whose decisions are known: at 4 processes allreduce uses
# reduce+bcast from 64 KiB up, gather uses gatherv everywhere.
out=$(run_openmpi -np 4 "$SEED" --server "$SERVER" \
      allreduce:allreduce_as_reduce_bcast:65536 \
      allreduce:allreduce_as_reduce_bcast:1048576 \
      gather:gather_as_gatherv:8 gather:gather_as_gatherv:1024 \
      gather:gather_as_gatherv:65536 gather:gather_as_gatherv:1048576 2>&1)
check "a deterministic profile is uploaded" grep -q "seeded" <<<"$out"
table=$("$COLLTUNE_CLI" --server "$SERVER" table --comm-size 4 --library "Open MPI" --format shim 2>&1)
if grep -q "^allreduce 8192 inf allreduce_as_reduce_bcast" <<<"$table" &&
   grep -q "^gather 0 inf gather_as_gatherv" <<<"$table"; then
  pass "the daemon's table holds the seeded decisions"
else
  fail "the daemon's table holds the seeded decisions" "$table"
fi

job() {  # job BYTES: the example application under the shim, asking the daemon
  run_openmpi -np 4 -x LD_PRELOAD="$SHIM" -x COLLTUNE_SERVER="$SERVER" \
    -x COLLTUNE_AGENT -x COLLTUNE_CACHE_DIR -x COLLTUNE_VERBOSE=2 \
    "$APP" --collectives allreduce,gather,bcast --bytes "$1" --iters 20 2>&1
}
out=$(job 65536)
if [ $? -eq 0 ] && grep -q "table from daemon $SERVER" <<<"$out" &&
   grep -q "allreduce on a communicator of 4 processes runs allreduce_as_reduce_bcast" <<<"$out" &&
   grep -q "gather on a communicator of 4 processes runs gather_as_gatherv" <<<"$out" &&
   grep -q "results verified" <<<"$out"; then
  pass "a job at 64 KiB runs what the daemon's table says"
else
  fail "a job at 64 KiB runs what the daemon's table says" "$out"
fi
check "rank 0 sent its table request before MPI_Init (mpirun told it the context)" \
  grep -q "daemon's GetTable call, sent before MPI_Init" <<<"$out"
if grep -q "bcast_as" <<<"$out"; then
  fail "collectives the table leaves at default stay default" "$out"
else
  pass "collectives the table leaves at default stay default"
fi
# A launcher whose environment describes another layout (here: one process
# per node): the early request is dropped and the real context asked for.
out=$(run_openmpi -np 4 -x LD_PRELOAD="$SHIM" -x COLLTUNE_SERVER="$SERVER" \
  -x COLLTUNE_AGENT -x COLLTUNE_CACHE_DIR -x COLLTUNE_VERBOSE=2 \
  sh -c 'OMPI_COMM_WORLD_LOCAL_SIZE=1 exec "$0" "$@"' \
  "$APP" --collectives allreduce --bytes 65536 --iters 20 2>&1)
if [ $? -eq 0 ] && grep -q "named another context; asking again" <<<"$out" &&
   grep -q "runs allreduce_as_reduce_bcast" <<<"$out" &&
   grep -q "results verified" <<<"$out"; then
  pass "a wrong guess of the layout before MPI_Init is asked again with MPI's own"
else
  fail "a wrong guess of the layout before MPI_Init is asked again with MPI's own" "$out"
fi
out=$(job 1000)
if [ $? -eq 0 ] && ! grep -q "runs allreduce_as_reduce_bcast" <<<"$out" &&
   grep -q "runs gather_as_gatherv" <<<"$out"; then
  pass "a job at 1000 B keeps default allreduce below the range"
else
  fail "a job at 1000 B keeps default allreduce below the range" "$out"
fi

# MPICH: its own profile, the same way.
out=$(run_mpich -np 2 "$SEED_MPICH" --server "$SERVER" \
      bcast:bcast_as_scatter_allgather:1024 2>&1)
check "an MPICH profile is uploaded" grep -q "seeded" <<<"$out"
out=$(run_mpich -np 2 -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_SERVER "$SERVER" \
      -genv COLLTUNE_AGENT "$COLLTUNE_AGENT" -genv COLLTUNE_CACHE_DIR "$COLLTUNE_CACHE_DIR" \
      -genv COLLTUNE_VERBOSE 2 "$APP_MPICH" --collectives bcast,allreduce \
      --bytes 1024 --iters 5 2>&1)
if [ $? -eq 0 ] && grep -q "MPICH" <<<"$out" &&
   grep -q "bcast on a communicator of 2 processes runs bcast_as_scatter_allgather" <<<"$out" &&
   ! grep -q "runs allreduce_as" <<<"$out" &&
   grep -q "daemon's GetTable call, sent before MPI_Init" <<<"$out"; then
  pass "an MPICH job runs its profile's decisions (its table asked for before MPI_Init)"
else
  fail "an MPICH job runs its profile's decisions" "$out"
fi

# Restart: same table from the same file.
before=$("$COLLTUNE_CLI" --server "$SERVER" table --comm-size 4 --library "Open MPI" --format shim)
stop_daemon
if start_daemon "$COLLTUNED" "$DB" "$SOCK"; then
  pass "colltuned restarts on the existing database"
else
  fail "colltuned restarts on the existing database" "$(cat "$T_TMP/daemon.log")"
fi
after=$("$COLLTUNE_CLI" --server "$SERVER" table --comm-size 4 --library "Open MPI" --format shim)
if [ -n "$before" ] && [ "$before" = "$after" ]; then
  pass "the restarted daemon serves the same table"
else
  fail "the restarted daemon serves the same table" "before:"$'\n'"$before"$'\n'"after:"$'\n'"$after"
fi

# The daemon gone, the job uses the cached table.
stop_daemon
out=$(job 65536)
if [ $? -eq 0 ] && grep -q "table from cache" <<<"$out" &&
   grep -q "runs allreduce_as_reduce_bcast" <<<"$out"; then
  pass "with the daemon down, the job uses the cached table"
else
  fail "with the daemon down, the job uses the cached table" "$out"
fi
finish
