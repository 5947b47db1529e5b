#!/usr/bin/env bash
# What an administrator does with `colltune`, against a real daemon holding a
# profile whose decisions are known: the guideline report, the table's
# history, pins (which jobs then follow), rollback, and the admin token that
# guards the changes.
#
# Args: colltuned colltune seed_profile collective_mix libcolltune.so
#       colltune-replay
source tests/lib/testlib.sh
args_as COLLTUNED COLLTUNE_CLI SEED APP SHIM REPLAY -- "$@"
SOCK="$T_TMP/d.sock"
SERVER="unix:$SOCK"
TOKEN="$T_TMP/admin.token"
head -c 32 /dev/urandom | base64 > "$TOKEN"
CT=("$COLLTUNE_CLI" --server "$SERVER")
ADMIN=("$COLLTUNE_CLI" --server "$SERVER" --admin-token-file "$TOKEN")


if ! start_daemon "$COLLTUNED" "$T_TMP/a.db" "$SOCK" --admin-token-file "$TOKEN"; then
  fail "colltuned starts with an admin token" "$(cat "$T_TMP/daemon.log")"
  finish; exit 1
fi
# Five launches in which allreduce_as_reduce_bcast takes half default's time
# at 64 KiB and 1 MiB, gather_as_gatherv at 8 B and 1 KiB, and scatter's
# default is three times slower at 1 KiB than at 64 KiB.
check "a known profile is seeded" run_openmpi -np 4 "$SEED" --server "$SERVER" \
  allreduce:allreduce_as_reduce_bcast:65536 allreduce:allreduce_as_reduce_bcast:1048576 \
  gather:gather_as_gatherv:8 gather:gather_as_gatherv:1024 scatter:default:1024
PROFILE=$("${CT[@]}" profiles --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')

# The guideline report. Five launches against five, all faster: the exact
# one-sided rank-test p-value is 1/C(10,5) = 1/252.
out=$("${CT[@]}" violations --profile "$PROFILE" 2>&1)
rows=$(grep -E "^GL" <<<"$out")
check "GL5 is violated at 64 KiB and 1 MiB, by a factor 2, p = 1/252, and the table runs the mock-up there" test "$(
  grep -Ec '^GL5 +allreduce +allreduce_as_reduce_bcast +(65536|1048576) +2\.00x +0\.0040 +5 +allreduce_as_reduce_bcast$' <<<"$rows")" -eq 2
check "GL12 is violated at 8 B and 1 KiB" test "$(
  grep -Ec '^GL12 +gather +gather_as_gatherv +(8|1024) +2\.00x' <<<"$rows")" -eq 2
check "no other guideline is reported" test "$(wc -l <<<"$rows")" -eq 4
check "the monotony violation of scatter is reported" \
  grep -Eq '^scatter +1024 +65536 +3\.00x' <<<"$out"
check "the report ends with its counts" \
  grep -q "4 guideline violations of 2 guidelines (0 of seed 003.s), 1 monotony violations" <<<"$out"
check "violations --json parses" python3 -c '
import json, sys
v = json.loads(sys.argv[1])
assert sorted((x["guideline"], x["msg_bytes"]) for x in v if x["kind"] == "guideline") == \
    [("GL12", 8), ("GL12", 1024), ("GL5", 65536), ("GL5", 1048576)], v
assert all(abs(x["p_value"] - 1 / 252) < 1e-9 for x in v if x["kind"] != "defect"), v
# What the table runs at each guideline violation: the faster mock-up, which
# nothing keeps from replacing default.
assert all((x["table_algorithm"], x["not_chosen"]) == (x["algorithm"], "")
           for x in v if x["kind"] == "guideline"), v
# The library defects of Open MPI (colltune quirks), with their forms.
assert any(x["kind"] == "defect" and x["algorithm"] == "native:ring" and x["forms"] for x in v), v
' "$("${CT[@]}" violations --profile "$PROFILE" --json)"

# The table carries its evidence.
out=$("${CT[@]}" table --comm-size 4 --library "Open MPI" 2>&1)
check "the table shows speedup, p-value and launches of each decision" \
  grep -Eq '^allreduce +8192 +inf +allreduce_as_reduce_bcast +2\.00x +0\.0040 +5/5' <<<"$out"

# History: the versions the launches produced, newest first.
out=$("${CT[@]}" history --profile "$PROFILE" 2>&1)
check "history shows the change that made allreduce use reduce+bcast" \
  grep -q "allreduce 8192-inf: default -> allreduce_as_reduce_bcast" <<<"$out"
LATEST=$("${CT[@]}" history --profile "$PROFILE" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["version"])')
check "history --version shows one version's rules" \
  grep -q "^gather  *0  *8191  *gather_as_gatherv" <<<"$("${CT[@]}" history --profile "$PROFILE" --version "$LATEST")"

# Changes need the token.
expect_exit "pin without a token is refused before asking" 1 "needs the daemon's admin token" \
  "${CT[@]}" pin --profile "$PROFILE" --collective allreduce --algorithm default
echo "not-the-token-at-all" > "$T_TMP/wrong.token"
expect_exit "pin with a wrong token is refused by the daemon" 1 "wrong admin token" \
  "${CT[@]}" --admin-token-file "$T_TMP/wrong.token" pin --profile "$PROFILE" \
  --collective allreduce --algorithm default
expect_exit "rollback with an unreadable token file" 1 "cannot read the admin token" \
  "${CT[@]}" --admin-token-file "$T_TMP/missing.token" rollback --profile "$PROFILE" --version 1
expect_exit "pin with an unknown algorithm is a usage error" 2 "unknown algorithm 'allreduce_fast'" \
  "${ADMIN[@]}" pin --profile "$PROFILE" --collective allreduce --algorithm allreduce_fast
expect_exit "pin with an algorithm of another collective" 1 "does not implement" \
  "${ADMIN[@]}" pin --profile "$PROFILE" --collective allreduce --algorithm gather_as_gatherv
expect_exit "pin with an inverted range" 2 "below --min-bytes" \
  "${ADMIN[@]}" pin --profile "$PROFILE" --collective allreduce --algorithm default \
  --min-bytes 100 --max-bytes 10
expect_exit "rollback to a version that does not exist" 1 "has no table version 99" \
  "${ADMIN[@]}" rollback --profile "$PROFILE" --version 99
expect_exit "history of a profile that does not exist" 1 "no profile with id 42" \
  "${CT[@]}" history --profile 42

# A pin: allreduce below 8 KiB uses reduce-scatter-block + allgather.
expect_exit "an admin pins a range" 0 "^pin [0-9]+: allreduce 0-8191 uses allreduce_as_reducescatterblock_allgather" \
  "${ADMIN[@]}" pin --profile "$PROFILE" --collective allreduce \
  --algorithm allreduce_as_reducescatterblock_allgather --max-bytes 8191 --note "site policy"
PIN=$("${CT[@]}" pins --profile "$PROFILE" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
check "pins lists it with its note" grep -q "site policy" <<<"$("${CT[@]}" pins --profile "$PROFILE")"
check "the table marks the pinned range" \
  grep -Eq '^allreduce +0 +8191 +allreduce_as_reducescatterblock_allgather .*pinned' \
  <<<"$("${CT[@]}" table --comm-size 4 --library "Open MPI")"
export COLLTUNE_AGENT="$COLLTUNE_CLI" COLLTUNE_CACHE_DIR="$T_TMP/cache"
job() {
  run_openmpi -np 4 -x LD_PRELOAD="$SHIM" -x COLLTUNE_SERVER="$SERVER" -x COLLTUNE_AGENT \
    -x COLLTUNE_CACHE_DIR -x COLLTUNE_VERBOSE=2 "$APP" --collectives allreduce \
    --bytes 1024 --iters 5 2>&1
}
out=$(job)
check "a job follows the pin" grep -q "runs allreduce_as_reducescatterblock_allgather" <<<"$out"

# Rollback to the first version (everything default) keeps the pin.
expect_exit "an admin rolls back to version 1" 0 "rules of version 1 are current again" \
  "${ADMIN[@]}" rollback --profile "$PROFILE" --version 1
out=$("${CT[@]}" table --comm-size 4 --library "Open MPI" --format shim)
if grep -q "^allreduce 0 8191 allreduce_as_reducescatterblock_allgather" <<<"$out" &&
   ! grep -q "gather_as_gatherv" <<<"$out" && ! grep -q "allreduce_as_reduce_bcast" <<<"$out"; then
  pass "after the rollback only the pin differs from default"
else
  fail "after the rollback only the pin differs from default" "$out"
fi
check "history records the rollback" grep -q "rollback to version 1" \
  <<<"$("${CT[@]}" history --profile "$PROFILE")"

expect_exit "an admin removes the pin" 0 "pin $PIN removed" \
  "${ADMIN[@]}" unpin --profile "$PROFILE" --pin "$PIN"
out=$("${CT[@]}" table --comm-size 4 --library "Open MPI" --format shim)
check "the pinned range is gone" grep -q "^allreduce 0 8191 default" <<<"$out"
# Unpinning retunes from the evidence: the rolled-back table was the
# incumbent, but five launches against five beat it, so the measured winners
# are back. (A choice that must hold against the evidence is a pin.)
check "the retune after the unpin decides from the evidence again" \
  grep -q "^allreduce 8192 inf allreduce_as_reduce_bcast" <<<"$out"
expect_exit "unpin of a pin that is gone" 1 "has no pin $PIN" \
  "${ADMIN[@]}" unpin --profile "$PROFILE" --pin "$PIN"
check "a job after the unpin runs default" bash -c '! grep -q "runs allreduce_as" <<<"$1"' _ "$(job)"

# Offline recomputation from the raw samples, read-only.
expect_exit "replay with the daemon's settings decides what is in force" 0 \
  "against the table in force \(version [0-9]+\): the same decisions" \
  "$REPLAY" --db "$T_TMP/a.db" --profile "$PROFILE"
expect_exit "replay with a 60% margin drops the 2x winners" 0 \
  "allreduce 8192-inf: allreduce_as_reduce_bcast -> default; gather 0-8191: gather_as_gatherv -> default" \
  "$REPLAY" --db "$T_TMP/a.db" --profile "$PROFILE" --margin 0.6
expect_exit "replay on a missing database" 2 "does not exist" \
  "$REPLAY" --db "$T_TMP/none.db" --profile 1
expect_exit "replay of a missing profile" 1 "no profile 9" "$REPLAY" --db "$T_TMP/a.db" --profile 9

# A daemon started without a token refuses every change.
stop_daemon
start_daemon "$COLLTUNED" "$T_TMP/a.db" "$SOCK" || fail "colltuned restarts" "$(cat "$T_TMP/daemon.log")"
expect_exit "a daemon without a token refuses changes" 1 "has no admin token" \
  "${ADMIN[@]}" rollback --profile "$PROFILE" --version 1
finish
