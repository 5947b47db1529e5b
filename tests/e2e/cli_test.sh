#!/usr/bin/env bash
# Bad arguments get a usage message and exit code 2; an unreachable daemon is
# a clear error with exit code 1; machine-readable output parses.
#
# Args: colltune colltuned colltune-bench
source tests/lib/testlib.sh
args_as COLLTUNE_CLI COLLTUNED BENCH -- "$@"

expect_exit() {  # expect_exit NAME CODE PATTERN CMD...
  local name=$1 code=$2 pattern=$3
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$code" ]; then
    fail "$name" "exit $rc, expected $code"$'\n'"$out"
  elif ! grep -Eq -- "$pattern" <<<"$out"; then
    fail "$name" "output lacks: $pattern"$'\n'"$out"
  else
    pass "$name"
  fi
}

expect_exit "colltune without a command" 2 "a command is required" "$COLLTUNE_CLI"
expect_exit "colltune with an unknown command" 2 "bogus" "$COLLTUNE_CLI" bogus
expect_exit "table without --comm-size" 2 "comm-size is required" "$COLLTUNE_CLI" table
expect_exit "table with a non-numeric size" 2 "comm-size" "$COLLTUNE_CLI" table --comm-size four
expect_exit "table with a zero size" 2 "comm-size" "$COLLTUNE_CLI" table --comm-size 0
expect_exit "table with an unknown format" 2 "format" "$COLLTUNE_CLI" table --comm-size 4 --format xml
expect_exit "a zero timeout" 2 "timeout" "$COLLTUNE_CLI" --timeout-ms 0 profiles
expect_exit "profile id 0" 2 "id" "$COLLTUNE_CLI" profile 0
expect_exit "unreachable daemon" 1 "cannot reach colltuned at unix:$T_TMP/none.sock" \
  "$COLLTUNE_CLI" --server "unix:$T_TMP/none.sock" profiles
expect_exit "help is no error" 0 "algorithms" "$COLLTUNE_CLI" --help

out=$("$COLLTUNE_CLI" algorithms)
missing=""
for name in allreduce_as_reduce_bcast allreduce_as_reducescatterblock_allgather \
            bcast_as_scatter_allgather gather_as_gatherv reduce_as_allreduce \
            scatter_as_scatterv; do
  grep -q " $name " <<<"$out" || missing+=" $name"
done
[ -z "$missing" ] && pass "colltune algorithms lists the mock-ups" || fail "colltune algorithms lists the mock-ups" "missing:$missing"
check "colltune algorithms names a segmented variant's segment size" \
  grep -Eq "^reduce +native:pipeline_seg128k +native +the library's own, forced with 128 KiB segments \(Open MPI\)" <<<"$out"
check "colltune algorithms --json parses" python3 -c '
import json, subprocess, sys
rows = json.loads(subprocess.check_output([sys.argv[1], "algorithms", "--json"]))
assert {"collective", "algorithm", "guideline", "summary"} <= set(rows[0])
assert any(r["algorithm"] == "gather_as_gatherv" and r["guideline"] == "GL12" for r in rows)
' "$COLLTUNE_CLI"

expect_exit "colltuned with an unknown flag" 2 "bogus" "$COLLTUNED" --bogus
expect_exit "colltuned with a margin out of range" 2 "margin" "$COLLTUNED" --margin 2
expect_exit "colltuned with a native margin out of range" 2 "native-margin" \
  "$COLLTUNED" --native-margin 1.5
expect_exit "colltuned on an unusable database path" 1 "/nonexistent/dir/x.db" \
  "$COLLTUNED" --db /nonexistent/dir/x.db --listen "unix:$T_TMP/x.sock"
printf 'not a database at all, just text\n%.0s' $(seq 200) > "$T_TMP/text.db"
expect_exit "colltuned on a file that is no database" 1 "text.db|not a database" \
  "$COLLTUNED" --db "$T_TMP/text.db" --listen "unix:$T_TMP/y.sock"

expect_exit "colltune-bench with a bad size" 2 "'1Q' is not a size" \
  run_openmpi -np 2 "$BENCH" --sizes 1Q
expect_exit "colltune-bench with an unknown collective" 2 "unknown collective 'allreduse'" \
  run_openmpi -np 2 "$BENCH" --collectives allreduse
expect_exit "colltune-bench with an unreachable daemon" 1 "upload failed: cannot reach colltuned" \
  run_openmpi -np 2 "$BENCH" --server "unix:$T_TMP/none.sock" --collectives bcast \
  --sizes 8 --nrep 3 --quiet
finish
