#!/usr/bin/env bash
# Held-out validation for real: a profile seeded to choose scatter_as_bcast
# at 1 MiB (a broadcast of the whole buffer, really far slower than the
# library's scatter), then `colltune validate` runs colltune-bench
# --validate under mpirun three times; the daemon takes the choice back,
# says why, and shows the launches as held out. Both libraries. Then a
# campaign with --validate, and the bad input around it.
#
# Args: colltuned colltune colltune-bench colltune-bench-mpich
#       seed_profile_openmpi seed_profile_mpich
source tests/lib/testlib.sh
args_as COLLTUNED COLLTUNE_CLI BENCH BENCH_MPICH SEED SEED_MPICH -- "$@"
SOCK="$T_TMP/d.sock"
SERVER="unix:$SOCK"
CT=("$COLLTUNE_CLI" --server "$SERVER")

if ! start_daemon "$COLLTUNED" "$T_TMP/v.db" "$SOCK"; then
  fail "colltuned starts" "$(cat "$T_TMP/daemon.log")"
  finish; exit 1
fi

# The profile of a library's cluster (one each).
profile_of() {
  "${CT[@]}" profiles --cluster "$1" --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])'
}
# What the current table runs for scatter at 1 MiB.
scatter_1m() {
  "${CT[@]}" table --cluster "$1" --comm-size 2 --format json |
    python3 -c '
import json, sys
t = json.load(sys.stdin)
for r in t["section"]["rules"]:
    hi = r["max_bytes"]
    if (r["collective"] == "scatter" and not r["layout"] and r["min_bytes"] <= 1048576
            and (hi is None or hi >= 1048576)):
        print(r["algorithm"])'
}

for lib in openmpi mpich; do
  if [ "$lib" = openmpi ]; then
    seed=$SEED; bench=$BENCH; run=run_openmpi; mpirun="mpirun.openmpi --bind-to core"
  else
    seed=$SEED_MPICH; bench=$BENCH_MPICH; run=run_mpich; mpirun="mpirun.mpich -bind-to core"
  fi
  cluster="held-$lib"
  check "$lib: a profile choosing scatter_as_bcast at 1 MiB is seeded" \
    $run -np 2 "$seed" --server "$SERVER" --cluster "$cluster" scatter:scatter_as_bcast:1048576
  check "$lib: the seeded table runs scatter_as_bcast at 1 MiB" \
    test "$(scatter_1m "$cluster")" = scatter_as_bcast
  out=$(timeout 300 "${CT[@]}" validate --np 2 --mpi "$lib" --mpirun "$mpirun" --bench "$bench" \
        --cluster "$cluster" --name held -- --collectives scatter --sizes 64K,1M --quiet \
        </dev/null 2>&1)
  rc=$?
  check "$lib: colltune validate runs its three launches" \
    grep -q "held-out validation 'held': 3 launches on 2 processes" <<<"$out"
  check "$lib: ... and exits 0" test "$rc" -eq 0
  check "$lib: each launch timed the one point where the table changes the algorithm" \
    test "$(grep -c 'held-out validation: 1 points where the table changes' <<<"$out")" -eq 3
  check "$lib: the held-out launches took scatter_as_bcast back" \
    test "$(scatter_1m "$cluster")" = default
  check "$lib: the benchmark says which version took what back" \
    grep -Eq "held-out validation: table version [0-9]+: scatter [0-9]+-inf: scatter_as_bcast -> default" <<<"$out"
  profile=$(profile_of "$cluster")
  check "$lib: the table's history records the change" bash -c \
    "'$COLLTUNE_CLI' --server '$SERVER' history --profile $profile | grep -q 'scatter_as_bcast -> default'"
  check "$lib: the violation stays, and says the held-out launches keep it out" bash -c \
    "'$COLLTUNE_CLI' --server '$SERVER' violations --profile $profile |
       grep -Eq '^GL[0-9]+ +scatter +scatter_as_bcast +1048576 .*default \\(slower .* in the held-out launches: median [0-9.]+x default.s\\)'"
  check "$lib: the profile lists the three launches as held out" test "$(
    "${CT[@]}" profile "$profile" | grep -Ec '^held +[0-2] .* held out$')" -eq 3
  check "$lib: ... and their points apart from the campaign's" bash -c \
    "'$COLLTUNE_CLI' --server '$SERVER' profile $profile --json | python3 -c '
import json, sys
p = json.load(sys.stdin)
held = [x for x in p[\"points\"] if x[\"held_out\"]]
assert held and all(x[\"launches\"] == 3 for x in held), held
assert all(x[\"launches\"] == 5 for x in p[\"points\"] if not x[\"held_out\"])'"
done

# A campaign, then its validation, in one command.
campaign_out=$(timeout 600 "${CT[@]}" campaign --np 2 --mpirun "mpirun.openmpi --bind-to core" \
      --bench "$BENCH" --cluster both --launches 3 --validate 3 --name both \
      -- --collectives allreduce,scatter --sizes 8,64K,1M --quiet </dev/null 2>&1)
rc=$?
# (check keeps its own $out)
said() { grep -Eq "$1" <<<"$campaign_out"; }
check "campaign --validate 3 runs the campaign..." said "campaign 'both': 3 launches"
check "... then three held-out launches" \
  said "held-out validation 'both-validation': 3 launches on 2 processes"
check "... each timing every point the table changes, or saying there is none" test "$(
  grep -Ec 'held-out validation: ([0-9]+ points where|the table runs default at every point)' \
    <<<"$campaign_out")" -eq 3
check "... and exits 0" test "$rc" -eq 0 || printf '%s\n' "$campaign_out" | tail -20

# Bad input.
expect_fail "validate --launches 2: too few to take anything back" "not in range 3 to 99" \
  "${CT[@]}" validate --np 2 --launches 2
expect_fail "campaign --validate 1: too few" "needs at least 3 launches" \
  "${CT[@]}" campaign --np 2 --validate 1
expect_fail "a campaign cannot reuse a held-out validation's label" \
  "is stored as a held-out validation" \
  "${CT[@]}" campaign --np 2 --mpirun "mpirun.openmpi" --bench "$BENCH" --cluster held-openmpi \
  --launches 1 --name held -- --collectives scatter --sizes 1M --quiet
check "a profile to validate is seeded" \
  run_openmpi -np 2 "$SEED" --server "$SERVER" --cluster reuse scatter:scatter_as_bcast:1048576
expect_fail "a validation cannot reuse a campaign's label" "is stored as a campaign" \
  "${CT[@]}" validate --np 2 --mpirun "mpirun.openmpi" --bench "$BENCH" --cluster reuse \
  --name seed_profile -- --collectives scatter --sizes 1M --quiet
expect_fail "the benchmark refuses --validate with --evaluate" "excludes" \
  run_openmpi -np 1 "$BENCH" --validate --evaluate --table /dev/null

stop_daemon
finish
