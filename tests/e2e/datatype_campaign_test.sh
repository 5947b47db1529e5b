#!/usr/bin/env bash
# Seed 003's datatype grid through the whole loop: a real campaign measures
# collectives whose data is a derived datatype (colltune-bench --datatypes),
# the daemon stores those points under their layout, decides each layout's
# sizes between default and the datatype forms, lists seed 003's violations
# apart, resumes a launch without measuring them again; and a table with a
# layout rule reaches the shim from the daemon, which then packs derived data
# only, with every byte as the library's.
#
# Args: colltuned colltune colltune-bench seed_profile libcolltune.so differential
#       colltune-bench-mpich
source tests/lib/testlib.sh
args_as COLLTUNED COLLTUNE_CLI BENCH SEED SHIM DIFF BENCH_MPICH -- "$@"
SOCK="$T_TMP/d.sock"
SERVER="unix:$SOCK"
CT=("$COLLTUNE_CLI" --server "$SERVER")

if ! start_daemon "$COLLTUNED" "$T_TMP/c.db" "$SOCK"; then
  fail "colltuned starts" "$(cat "$T_TMP/daemon.log")"
  finish; exit 1
fi

profile_of() {  # the id of the profile of cluster $1
  "${CT[@]}" profiles --cluster "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])'
}

# 1. A real campaign over a small grid: two layouts, two collectives and a
# v-variant (gatherv: no size key, its normal form only). The struct's points
# are keyed by the whole class (data mixing basic types finds the rules every
# rank finds alike), the tiles' by their block size.
GRID=(--collectives bcast,allgather,gatherv --sizes 32K --irregular-sizes 32K
      --datatypes tiled:2,struct:8 --datatype-sizes 32K --nrep 10 --quiet)
out=$(timeout 300 "${CT[@]}" campaign --validate 0 --np 2 --mpirun mpirun.openmpi --bench "$BENCH" \
      --launches 2 --name dt --cluster dt -- "${GRID[@]}" </dev/null 2>&1)
rc=$?; [ $rc -eq 0 ] || echo "$out" | tail -20
check "a campaign with --datatypes runs" test $rc -eq 0
ID=$(profile_of dt)
check "the profile holds every layout's points: default, the datatype forms and the plain candidates, in every regime" python3 -c '
import json, sys
pts = json.loads(sys.argv[1])["points"]
for coll in ("bcast", "allgather", "gatherv"):
    for layout in ("@tiled/8B", "@struct"):
        mine = [p for p in pts if p["collective"] == coll and p.get("problem") == layout]
        algs = {p["algorithm"] for p in mine if p["regime"] == "sync"}
        forms = {coll + "_as_" + f for f in
                 (("normalized",) if coll == "gatherv" else ("packed", "contiguous", "normalized"))}
        assert {"default"} | forms <= algs, (coll, layout, algs)
        # The plain candidates too: a plain rule applies to derived data.
        assert algs - forms - {"default"}, (coll, layout, algs)
        regimes = {p["regime"] for p in mine if p["algorithm"] == "default" and p["launches"] == 2}
        assert regimes == {"sync", "loop", "imbalance"}, (coll, layout, regimes)
        assert all(p["msg_bytes"] in (32768, 32736) for p in mine), mine
plain = {p["algorithm"] for p in pts if p["collective"] == "bcast" and not p.get("problem")}
assert len(plain) > 2, "the plain points keep every algorithm"
assert not any(a.endswith(("_as_packed", "_as_contiguous", "_as_normalized")) for a in plain), plain
' "$("${CT[@]}" profile "$ID" --json)"
table=$("${CT[@]}" table --cluster dt --comm-size 2)
check "every measured layout gets its own rules, naming default or a datatype form" python3 -c '
import re, sys
keys = {}
for line in sys.argv[1].splitlines():
    m = re.match(r"^(\w+)@(\S+) +\d+ +\S+ +(\S+)", line)
    if m:
        keys.setdefault((m.group(1), m.group(2)), set()).add(m.group(3))
want = {(c, l) for c in ("bcast", "allgather", "gatherv") for l in ("tiled/8B", "struct")}
assert set(keys) == want, keys
for (c, l), algs in keys.items():
    assert algs <= {"default"} | {c + "_as_" + f for f in ("packed", "contiguous", "normalized")}, (c, l, algs)
# gatherv has no size key: one rule for every call of a layout.
for l in ("tiled/8B", "struct"):
    rows = [x for x in sys.argv[1].splitlines() if x.startswith("gatherv@" + l + " ")]
    assert len(rows) == 1 and re.match(r"^\S+ +0 +inf ", rows[0]), rows
' "$table"
# Each rule naming a datatype form must rest on the points: faster than
# default in the synchronized regime at the layout's size.
check "a layout's packed rule is backed by its points" python3 -c '
import json, re, sys
pts = json.loads(sys.argv[2])["points"]
med = {(p["collective"], p.get("problem"), p["algorithm"]): p["median_seconds"]
       for p in pts if p["regime"] == "sync"}
for line in sys.argv[1].splitlines():
    m = re.match(r"^(\w+)@(\S+) +\d+ +\S+ +(\w+_as_(?:packed|contiguous|normalized))", line)
    if m:
        c, l, a = m.groups()
        assert med[(c, "@" + l, a)] < med[(c, "@" + l, "default")], line
' "$table" "$("${CT[@]}" profile "$ID" --json)"
out=$("${CT[@]}" violations --profile "$ID" 2>&1)
check "violations list seed 003's guidelines in a table of their own" \
  grep -q "^datatype guideline violations (seed 003)" <<<"$out"
# Launch 1 again: everything, the layouts' points included, is stored.
out=$(run_openmpi -np 2 "$BENCH" --server "$SERVER" --campaign dt --launch 1 --cluster dt \
      "${GRID[@]}" 2>&1)
check "a resumed launch measures no stored point again, the layouts' included" \
  grep -q "^colltune-bench: 0 points measured" <<<"$out"
# The grid times the plain candidates on derived data too, where libraries
# have defects of their own: MPICH 4.0.2's brucks alltoall aborts ("Message
# truncated") on 64 KiB blocks of a struct of int and double (common/quirks.h),
# so it is timed at the plain point and not at the struct's.
out=$(run_mpich -np 2 "$BENCH_MPICH" --collectives alltoall --sizes 64K --datatypes struct:8 \
      --datatype-sizes 64K --nrep 3 --quiet 2>&1)
expect_output "MPICH's brucks alltoall runs at the plain point, not on a struct of int and double" \
  $? "$out" '^alltoall +[0-9]+ native:brucks ' '^alltoall/@struct +[0-9]+ native:pairwise '
check "... and is left out at the struct's point" test "$(grep -c '^alltoall/@struct.* native:brucks ' <<<"$out")" -eq 0
out=$(run_openmpi -np 1 "$BENCH" --datatypes tiled:2,spiral:2 2>&1)
check "a bad --datatypes value is refused by name" grep -q "'spiral:2' is not layout:block" <<<"$out"

# 2. A known profile: the packed form wins at every size for the layouts the
# differential's types fall in (4-byte blocks), and nowhere for plain bcast.
# Its struct points are keyed by block size, as earlier campaigns keyed them:
# such a rule is each rank's own (the packed form keeps the signature).
check "a profile with layout points is seeded" run_openmpi -np 3 "$SEED" --server "$SERVER" \
  --campaign seeded bcast:bcast_as_scatter_allgather:8 \
  "bcast@tiled/4B:bcast_as_packed:8" "bcast@tiled/4B:bcast_as_packed:1024" \
  "bcast@tiled/4B:bcast_as_packed:65536" "bcast@tiled/4B:bcast_as_packed:1048576" \
  "bcast@struct/4B:bcast_as_packed:8" "bcast@struct/4B:bcast_as_packed:1024" \
  "bcast@struct/4B:bcast_as_packed:65536" "bcast@struct/4B:bcast_as_packed:1048576" \
  "bcast@nested/4B:bcast_as_packed:1024"
table=$("${CT[@]}" table --comm-size 3 2>&1)
expect_output "the table has the layouts' rules after the plain ones" $? "$table" \
  '^bcast@tiled/4B +0 +inf +bcast_as_packed' '^bcast@struct/4B +0 +inf +bcast_as_packed' \
  '^bcast@nested/4B +0 +[0-9]+ +default' '^bcast@nested/4B +[0-9]+ +[0-9]+ +bcast_as_packed'
SEEDED=$("${CT[@]}" profiles --json | python3 -c '
import json, sys
print([p["id"] for p in json.load(sys.stdin) if p["context"]["comm_size"] == 3][0])')
out=$("${CT[@]}" violations --profile "$SEEDED" 2>&1)
expect_output "seed 003's violations name their layout and what the table runs there" $? "$out" \
  '^DGL2 +bcast +tiled/4B +bcast_as_packed +1048576 .* bcast_as_packed$' \
  '^DGL2 +bcast +struct/4B +bcast_as_packed +8 .* bcast_as_packed$' \
  'guideline violations of [0-9]+ guidelines \(9 of seed 003.s\)'
json=$("${CT[@]}" violations --profile "$SEEDED" --json)
check "violations --json carries the layout" python3 -c '
import json, sys
v = [x for x in json.loads(sys.argv[1]) if x.get("layout")]
assert len(v) == 9 and all(x["guideline"] == "DGL2" for x in v), v' "$json"

# The shim fetches that table from the daemon: derived data of those layouts
# is packed, contiguous data runs what the plain rules say, results are the
# library's byte for byte.
mkdir -p "$T_TMP/cache"
out=$(run_openmpi -np 3 -x LD_PRELOAD="$SHIM" -x COLLTUNE_SERVER="$SERVER" \
      -x COLLTUNE_CACHE_DIR="$T_TMP/cache" -x COLLTUNE_VERBOSE=1 \
      "$DIFF" --collective bcast --cases 60 --seed 7 2>&1)
expect_output "a job under the daemon's table packs derived bcasts, results as the library's" \
  $? "$out" "bcast: [0-9]+ cases, 0 failed" "ran mock-ups: .*bcast_as_packed=[1-9]"
finish
