#!/usr/bin/env bash
# `colltune campaign` and `colltune evaluate` for real: the driver runs
# colltune-bench under mpirun several times, the launches reach the daemon,
# an interrupted campaign resumes without measuring again what is stored, and
# the evaluation reports its summary (and keeps its points for scoring other
# tables offline).
#
# Args: colltuned colltune colltune-bench whatif_table.py
source tests/lib/testlib.sh
args_as COLLTUNED COLLTUNE_CLI BENCH WHATIF -- "$@"
SOCK="$T_TMP/d.sock"
SERVER="unix:$SOCK"
CT=("$COLLTUNE_CLI" --server "$SERVER")
DRIVE=(--np 2 --mpirun "mpirun.openmpi" --bench "$BENCH")

if ! start_daemon "$COLLTUNED" "$T_TMP/c.db" "$SOCK"; then
  fail "colltuned starts" "$(cat "$T_TMP/daemon.log")"
  finish; exit 1
fi

# Stored points of one campaign label, from the profile summaries.
stored_points() {
  "${CT[@]}" profiles --cluster "$1" --json |
    python3 -c 'import json,sys; print(sum(p["measurements"] for p in json.load(sys.stdin)))'
}
# Algorithms of the listed collectives a 2-process Open MPI job can run,
# default included (the library's own as it offers them; not seed 003's
# datatype forms, timed at --datatypes points only).
algorithms_of() {
  run_openmpi -np 2 "$BENCH" --list-algorithms 2>/dev/null |
    awk -v list=",$1," 'NF == 3 && index(list, "," $1 ",") > 0' | wc -l
}

# What the library offers, with the segment sizes of forced ones.
LIST=$(run_openmpi -np 2 "$BENCH" --list-algorithms 2>/dev/null)

# 1. Three launches, two collectives, three sizes.
out=$(timeout 300 "${CT[@]}" campaign --validate 0 "${DRIVE[@]}" --launches 3 --name small \
      --cluster small --log-dir "$T_TMP" -- --collectives allreduce,scatter \
      --sizes 8,1K,64K --quiet </dev/null 2>&1)
rc=$?
expected=$(( 3 * $(expected_points "$LIST" allreduce,scatter "8 1024 65536") ))
if [ $rc -eq 0 ] && grep -q "campaign 'small': 3 launches on 2 processes" <<<"$out"; then
  pass "colltune campaign runs its launches"
else
  fail "colltune campaign runs its launches" "rc=$rc"$'\n'"$out"
fi
check "every launch's points reach the daemon" test "$(stored_points small)" -eq "$expected"
check "each launch gets its own index" grep -q -- "--launch 2 " <<<"$out"
# A choice can depend on where the root is; programs use any: launch 0 times
# scatter at root 0, launch 1 at the last rank, launch 2 (of 2 processes) at
# root 0 again.
check "each launch times the rooted collectives at its own root" python3 -c '
import re, sys
roots = re.findall(r"rooted collectives at root (\d+)", sys.argv[1])
assert roots == ["0", "1", "0"], roots' "$out"
check "each launch's medians are kept with --log-dir" \
  grep -q "^allreduce " "$T_TMP/small-launch-1.txt"
out=$("${CT[@]}" profiles --cluster small --json)
check "the profile counts three launches" python3 -c '
import json, sys
p = json.loads(sys.argv[1])
assert len(p) == 1 and p[0]["launches"] == 3 and p[0]["campaigns"] == 1, p' "$out"
# Every point was timed in the three regimes: default at every point of every
# launch, the candidates that could still win besides it.
small_id=$("${CT[@]}" profiles --cluster small --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
check "the profile has every point's default back to back and after uneven work" python3 -c '
import json, sys
pts = json.loads(sys.argv[1])["points"]
for regime in ("loop", "imbalance"):
    got = {(p["collective"], p["msg_bytes"]) for p in pts if p["regime"] == regime and p["algorithm"] == "default" and p["launches"] == 3}
    assert len(got) == 6, (regime, got)' "$("${CT[@]}" profile "$small_id" --json)"
check "the table gives each campaign range its evidence per regime" \
  grep -Eq "^(allreduce|scatter) .* sync" <<<"$("${CT[@]}" table --cluster small --comm-size 2)"
check "... and marks none as decided on sync alone" \
  bash -c '! grep -q "sync only" <<<"$1"' _ "$("${CT[@]}" table --cluster small --comm-size 2)"
# A campaign timed synchronized only (as every campaign before regimes) is
# decided, and its ranges are marked.
out=$(timeout 300 "${CT[@]}" campaign --validate 0 "${DRIVE[@]}" --launches 3 --name synconly \
      --cluster synconly -- --collectives allreduce --sizes 8,64K --nrep 10 --regimes sync \
      --quiet </dev/null 2>&1)
check "a campaign with --regimes sync runs" test $? -eq 0
table=$("${CT[@]}" table --cluster synconly --comm-size 2)
check "its ranges are marked as decided on synchronized timings only" \
  grep -q "^allreduce .* sync only" <<<"$table"
check "... and colltune table says so under the table" grep -q "decided on synchronized timings only" <<<"$table"

# 1b. Gatherv and scatterv: a point is a block-size distribution (seed 000's
# six) and an average block size; the table gets one rule for all sizes; a
# rerun of the same campaign finds every point stored.
out=$(timeout 300 "${CT[@]}" campaign --validate 0 "${DRIVE[@]}" --launches 3 --name irregular \
      --cluster irregular -- --collectives gatherv,scatterv --irregular-sizes 8 \
      --nrep 10 --quiet </dev/null 2>&1)
rc=$?
irregular=$(( 6 * $(algorithms_of gatherv,scatterv) ))
check "an irregular campaign runs" test "$rc" -eq 0
check "every (distribution, algorithm) point of every launch is stored" \
  test "$(stored_points irregular)" -eq $(( 3 * irregular ))
table=$("${CT[@]}" table --cluster irregular --comm-size 2 --format shim)
check "gatherv and scatterv get one rule each, for all sizes" python3 -c '
import sys
rules = [l.split() for l in sys.argv[1].splitlines() if l.split()[:1] in (["gatherv"], ["scatterv"])]
assert sorted(r[0] for r in rules) == ["gatherv", "scatterv"], rules
assert all(r[1] == "0" and r[2] == "inf" for r in rules), rules' "$table"
profile=$("${CT[@]}" profiles --cluster irregular --json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
check "the profile lists points by distribution" \
  grep -q "^gatherv/spikes " <<<"$("${CT[@]}" profile "$profile")"
out=$(timeout 300 "${CT[@]}" campaign --validate 0 "${DRIVE[@]}" --launches 1 --name irregular \
      --cluster irregular -- --collectives gatherv,scatterv --irregular-sizes 8 \
      --nrep 10 --quiet </dev/null 2>&1)
check "a rerun skips every stored distribution point" \
  grep -q "$irregular already stored were skipped" <<<"$out"
check "the launch measured with the heap in its fixed state (bench/heap.h)" \
  grep -q "; heap fixed: blocks up to 32 MiB from it" <<<"$out"

# 1c. The collectives added later: barrier has one point (no size), exscan
# the sizes, allgatherv and reduce_scatter a point per distribution at each
# total size (their key), alltoallv and alltoallw a point per distribution;
# barrier, alltoallv and alltoallw get one rule for all calls, allgatherv and
# reduce_scatter rules that cover every total size.
out=$(timeout 600 "${CT[@]}" campaign --validate 0 "${DRIVE[@]}" --launches 3 --name later \
      --cluster later -- --collectives barrier,exscan,allgatherv,reduce_scatter,alltoallv,alltoallw \
      --sizes 8,1K --total-sizes 64,4K --irregular-sizes 8 --nrep 10 --quiet </dev/null 2>&1)
rc=$?
later=$(( $(algorithms_of barrier) + 2 * $(algorithms_of exscan) +
          12 * $(algorithms_of allgatherv,reduce_scatter) + 6 * $(algorithms_of alltoallv,alltoallw) ))
check "a campaign of the six later collectives runs" test "$rc" -eq 0
check "... stores every point of every launch" test "$(stored_points later)" -eq $(( 3 * later ))
table=$("${CT[@]}" table --cluster later --comm-size 2 --format shim)
check "barrier, alltoallv and alltoallw get one rule each; allgatherv and reduce_scatter cover every total" python3 -c '
import sys
rules = [l.split() for l in sys.argv[1].splitlines() if l.split()[:1] in
         (["barrier"], ["alltoallv"], ["alltoallw"], ["allgatherv"], ["reduce_scatter"], ["exscan"])]
for c in ("barrier", "alltoallv", "alltoallw"):
    mine = [r for r in rules if r[0] == c]
    assert len(mine) == 1 and mine[0][1] == "0" and mine[0][2] == "inf", (c, rules)
for c in ("allgatherv", "reduce_scatter", "exscan"):
    mine = [r for r in rules if r[0] == c]
    assert mine and mine[0][1] == "0" and mine[-1][2] == "inf", (c, rules)
    for a, b in zip(mine, mine[1:]):
        assert int(a[2]) + 1 == int(b[1]), (c, rules)' "$table"
profile=$("${CT[@]}" profiles --cluster later --json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
shown=$("${CT[@]}" profile "$profile")
check "the profile lists allgatherv by distribution at its totals" \
  grep -Eq "^allgatherv/two_blocks +default +4096 " <<<"$shown"
check "... and alltoallv by distribution" grep -q "^alltoallv/spikes " <<<"$shown"

# 2. Interrupted: the job dies (MPI_Abort, as on a crash or a time limit)
# right after its second collective was stored; the same command then
# resumes, skips exactly what was stored, and the profile ends complete with
# no point stored twice.
colls=allgather,allreduce,alltoall,bcast
sizes=8,1K,64K
out=$(COLLTUNE_BENCH_ABORT_AFTER=2 timeout 300 "${CT[@]}" campaign --validate 0 "${DRIVE[@]}" \
      --launches 1 --name resumed --cluster resumed -- --collectives $colls \
      --sizes $sizes --nrep 20 --quiet </dev/null 2>&1)
rc=$?
stored=$(stored_points resumed)
first_two=$(expected_points "$LIST" allgather,allreduce "8 1024 65536")
full=$(expected_points "$LIST" $colls "8 1024 65536")
if [ $rc -ne 0 ] && grep -q "incomplete .* --name resumed to resume" <<<"$out" &&
   [ "$stored" -eq "$first_two" ]; then
  pass "a launch that dies keeps the collectives it uploaded"
else
  fail "a launch that dies keeps the collectives it uploaded" \
    "rc=$rc stored=$stored expected=$first_two"$'\n'"$out"
fi
out=$(timeout 300 "${CT[@]}" campaign --validate 0 "${DRIVE[@]}" --launches 1 --name resumed \
      --cluster resumed -- --collectives $colls --sizes $sizes --nrep 20 --quiet \
      </dev/null 2>&1)
check "the same command resumes the campaign" \
  grep -q "$first_two already stored were skipped" <<<"$out"
check "the resumed campaign ends complete, nothing stored twice" \
  test "$(stored_points resumed)" -eq "$full"

# 3. The driver's errors: no daemon, a launcher that does not exist, a
# failing launch (with the resume hint).
expect_fail "campaign without a daemon fails before any launch" "cannot reach colltuned" \
  "$COLLTUNE_CLI" --server "unix:$T_TMP/none.sock" campaign --validate 0 "${DRIVE[@]}"
expect_fail "campaign with a missing launcher says so" "cannot start no-such-mpirun" \
  "${CT[@]}" campaign --validate 0 --np 2 --mpirun no-such-mpirun --bench "$BENCH" --launches 1
# More processes than cores, unbound: warned before the first launch; bound
# (or on other hosts), not.
many=$(( $(nproc) + 1 ))
expect_fail "campaign warns that $many unbound processes on $(nproc) cores vary by placement" \
  "warning: $many processes on the $(nproc) cores here, unbound" \
  "${CT[@]}" campaign --validate 0 --np "$many" --mpirun no-such-mpirun --bench "$BENCH" --launches 1
out=$("${CT[@]}" evaluate --np "$many" --mpirun "no-such-mpirun --bind-to core" \
      --bench "$BENCH" </dev/null 2>&1)
if [ $? -ne 0 ] && grep -q "cannot start no-such-mpirun" <<<"$out" &&
   ! grep -q "unbound" <<<"$out"; then
  pass "evaluate does not warn when the processes are bound"
else
  fail "evaluate does not warn when the processes are bound" "$out"
fi
expect_fail "a failing launch stops the campaign with the resume hint" \
  "incomplete .* --name broken to resume" \
  "${CT[@]}" campaign --validate 0 "${DRIVE[@]}" --name broken -- --collectives allreduse
expect_fail "campaign needs --np or --layouts" "campaign needs --np or --layouts" \
  "${CT[@]}" campaign
expect_fail "--np and --layouts exclude each other" "excludes" \
  "${CT[@]}" campaign --validate 0 --np 4 --layouts 2x2
for bad in 2y2 0x4 3+0 2x2:diagonal 3+1:round_robin x2; do
  expect_fail "a bad layout is named before anything runs: $bad" "--layouts: '${bad//+/\\+}'" \
    "$COLLTUNE_CLI" --server "unix:$T_TMP/none.sock" campaign --validate 0 --layouts "$bad" --hosts a,b
done
expect_fail "layouts through mpirun need the hosts" "needs --hosts" \
  "$COLLTUNE_CLI" --server "unix:$T_TMP/none.sock" evaluate --layouts 2x2
expect_fail "a layout needs as many hosts as nodes" "needs 4 hosts; --hosts names 2" \
  "${CT[@]}" campaign --validate 0 --layouts 4x1 --hosts a,b --bench "$BENCH" --launches 1
expect_fail "campaign refuses zero launches" "launches" "${CT[@]}" campaign --validate 0 --np 2 --launches 0

# 1d. A whole-job choice: coll/han, timed in a launch of its own (the MCA
# variable set for that launch only), shown against default, never a rule.
out=$(timeout 300 "${CT[@]}" campaign --validate 0 "${DRIVE[@]}" --launches 1 --whole-job han \
      --name han --cluster han -- --collectives allreduce,alltoall --sizes 8,64K \
      --nrep 10 --quiet </dev/null 2>&1)
rc=$?
expect_output "campaign --whole-job han: one more launch, with coll/han enabled" $rc "$out" \
  "launch with han enabled: OMPI_MCA_coll_han_priority=100 .* --launched-with han" \
  "campaign 'han': 2 launches on 2 processes"
han_id=$("${CT[@]}" profiles --cluster han --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
check "the profile holds native:han for allreduce in every regime, nothing for alltoall" \
  python3 -c '
import json, sys
pts = json.loads(sys.argv[1])["points"]
han = {(p["collective"], p["msg_bytes"], p["regime"]) for p in pts if p["algorithm"] == "native:han"}
want = {("allreduce", b, r) for b in (8, 65536) for r in ("sync", "loop", "imbalance")}
assert han == want, han' "$("${CT[@]}" profile "$han_id" --json)"
out=$("${CT[@]}" profile "$han_id")
check "colltune profile compares it with default in each of the three regimes" \
  test "$(sed -n '/^whole-job choices/,/^$/p' <<<"$out" |
          grep -Ec "^  (sync|loop|imbalance) +2 +[0-9]+ +[0-9]+ +[0-9.]+ ")" -eq 3
check "... with a verdict for the whole job" \
  grep -Eq "^  verdict: (enable it for jobs of this layout|keep it off|only for jobs whose calls are where it wins): " <<<"$out"
check "... and the table never names it" \
  bash -c '! grep -q "native:han" <<<"$1"' _ "$("${CT[@]}" table --cluster han --comm-size 2)"
expect_exit "the benchmark refuses --launched-with han where coll/han is off" 1 \
  "coll_han_priority is 0, coll_tuned_priority [0-9]+: coll/han does not outrank" \
  run_openmpi -np 2 "$BENCH" --launched-with han --collectives allreduce --sizes 8 --nrep 5
expect_fail "--whole-job han is refused for MPICH" "Open MPI's coll/han" \
  "${CT[@]}" campaign --validate 0 --np 2 --mpi mpich --whole-job han --bench "$BENCH" --launches 1

# 4. colltune evaluate on the small campaign's profile.
out=$(timeout 300 "${CT[@]}" evaluate "${DRIVE[@]}" --cluster small -- \
      --collectives allreduce,scatter --sizes 8,1K,64K --nrep 20 </dev/null 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -Eq "^evaluate: 6 points, 2 processes on 1 node \(1 x 2\), " <<<"$out" &&
   grep -q "^evaluate: violations established by the campaign" <<<"$out" &&
   grep -q "^evaluate: speedup over default, geometric mean" <<<"$out"; then
  pass "colltune evaluate runs the evaluation and prints its summary"
else
  fail "colltune evaluate runs the evaluation and prints its summary" "rc=$rc"$'\n'"$out"
fi
# Against the best one algorithm per point for every regime: a median per
# regime, each a ratio, and the count of points whose own oracle is out of
# reach among the 6.
check "evaluate compares tuned with the best single choice in each regime" python3 -c '
import re, sys
m = re.search(r"^evaluate\[one choice\]: .*: median sync ([0-9.]+), loop ([0-9.]+), "
              r"imbalance ([0-9.]+); worst ([0-9.]+)", sys.argv[1], re.M)
n = re.search(r"^evaluate\[one choice\]: .* at ([0-9]+) of ([0-9]+) points", sys.argv[1], re.M)
assert m and n, sys.argv[1]
assert all(0 < float(x) < 10 for x in m.groups()), m.groups()
assert int(n.group(2)) == 6 and int(n.group(1)) <= 6, n.groups()' "$out"

# 5. Two evaluation jobs whose points are kept, then scored again offline
# (scripts/whatif_table.py): the table the evaluation ran ("measured") must
# get evaluate's own mean penalty, and a table of defaults must change no
# point.
mkdir -p "$T_TMP/eval"
out=$(timeout 300 "${CT[@]}" evaluate "${DRIVE[@]}" --cluster small --launches 2 \
      --log-dir "$T_TMP/eval" -- --collectives allreduce,scatter --sizes 8,1K,64K \
      --nrep 20 </dev/null 2>&1)
rc=$?
check "evaluate --launches 2 --log-dir keeps both launches' points" \
  test $rc -eq 0 -a -s "$T_TMP/eval/points-0" -a -s "$T_TMP/eval/points-1"
if grep -Eq "evaluation 1/2: .* --launch 0( |\$)" <<<"$out" &&
   grep -Eq "evaluation 2/2: .* --launch 1( |\$)" <<<"$out"; then
  pass "each evaluation launch gets its own index (and so its own measurement order)"
else
  fail "each evaluation launch gets its own index (and so its own measurement order)" "$out"
fi
penalty=$(sed -n 's/^evaluate: tuned\/oracle median .* mean penalty \([0-9.]*\) %.*/\1/p' <<<"$out")
printf 'colltune-table 1\nsection 2\nallreduce 0 inf default\nscatter 0 inf default\n' \
  >"$T_TMP/defaults.txt"
scored=$(python3 "$WHATIF" --points "$T_TMP/eval" --comm-size 2 --table measured \
         --table "$T_TMP/defaults.txt" 2>&1)
check "whatif_table.py scores the measured table with evaluate's mean penalty ($penalty %)" \
  python3 -c '
import re, sys
m = re.search(r"^measured: .*? mean penalty ([0-9.]+) %", sys.argv[2], re.M)
ok = m and sys.argv[1] and abs(float(m.group(1)) - float(sys.argv[1])) <= 0.06
sys.exit(0 if ok else "evaluate: %s %%, whatif:\n%s" % (sys.argv[1], sys.argv[2]))' \
  "$penalty" "$scored"
check "whatif_table.py scores a table of defaults on default's series" python3 -c '
import re, sys
m = re.search(r"defaults.txt: .*changed 0, .* 6 points", sys.argv[1])
sys.exit(0 if m else sys.argv[1])' "$scored"
expect_fail "whatif_table.py on a directory without points" "no points-" \
  python3 "$WHATIF" --points "$T_TMP" --table measured
finish
