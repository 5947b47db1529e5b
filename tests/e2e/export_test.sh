#!/usr/bin/env bash
# `colltune export`: a table's native choices written in the libraries' own
# tuning files, then loaded into the real libraries with no shim at all.
# Which allreduce algorithm ran is told by tests/mpi/native_trace.c's
# fingerprint (the lengths its recording operation sees); every expected
# fingerprint comes from the library's own forcing of the algorithm by name
# (Open MPI: --mca coll_tuned_allreduce_algorithm NAME; MPICH:
# MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=NAME), never from colltune, so a wrong
# algorithm number, message-size conversion or file the library ignores
# shows. Tables come written by hand and from a daemon (seeded, then pinned).
#
# Args: colltune colltuned seed_profile_openmpi seed_profile_mpich
#       native_trace.c export_collectives.c
source tests/lib/testlib.sh
args_as COLLTUNE_CLI COLLTUNED SEED SEED_MPICH TRACE_SRC COLLS_SRC -- "$@"
CT=("$COLLTUNE_CLI")
T="$T_TMP"

# The MPI programs, built here with each library's own compiler wrapper.
if ! out=$(mpicc -O1 -o "$T/trace_ompi" "$TRACE_SRC" 2>&1 &&
           mpicc -O1 -o "$T/colls_ompi" "$COLLS_SRC" 2>&1 &&
           mpicc.mpich -O1 -o "$T/trace_mpich" "$TRACE_SRC" 2>&1 &&
           mpicc.mpich -O1 -o "$T/colls_mpich" "$COLLS_SRC" 2>&1); then
  fail "the test programs build with mpicc and mpicc.mpich" "$out"
  finish; exit 1
fi

table() {  # FILE LIBRARY: a table file from the rules on stdin
  { echo "colltune-table 1"; [ -n "$2" ] && echo "library $2"; cat; } > "$1"
}
same() {  # NAME A B: two fingerprints are equal (and not empty)
  if [ -n "$2" ] && [ "$2" == "$3" ]; then pass "$1"
  else fail "$1" "got:"$'\n'"$2"$'\n'"wanted:"$'\n'"$3"; fi
}
differ() {  # NAME A B: two fingerprints differ (and neither is empty)
  if [ -n "$2" ] && [ -n "$3" ] && [ "$2" != "$3" ]; then pass "$1"
  else fail "$1" "both:"$'\n'"$2"; fi
}

# Fingerprints: one sorted line per rank, or nothing if the run failed.
DYN=(--mca coll_tuned_use_dynamic_rules 1)
ompi_fixed() { run_openmpi -np "${NP:-4}" "$T/trace_ompi" "$1" 2>/dev/null | sort; }
ompi_forced() {  # COUNT NAME
  run_openmpi -np 4 "${DYN[@]}" --mca coll_tuned_allreduce_algorithm "$2" \
    "$T/trace_ompi" "$1" 2>/dev/null | sort
}
ompi_file() {  # COUNT RULES
  run_openmpi -np "${NP:-4}" "${DYN[@]}" --mca coll_tuned_dynamic_rules_filename "$2" \
    "$T/trace_ompi" "$1" 2>/dev/null | sort
}
mpich_auto() { run_mpich -np 4 "$T/trace_mpich" "$1" 2>/dev/null | sort; }
mpich_forced() {  # COUNT NAME
  MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=$2 run_mpich -np 4 "$T/trace_mpich" "$1" 2>/dev/null |
    sort
}
mpich_file() {  # COUNT JSON
  MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$2 run_mpich -np 4 "$T/trace_mpich" "$1" \
    2>/dev/null | sort
}
mpich_with() {  # JSON MPIRUN-ARGS...: mpirun.mpich with that selection file
  local json=$1
  shift
  MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$json run_mpich "$@"
}

# What Open MPI's parser demands of a rules file (coll_tuned_dynamic_file.c):
# integers after '#' comments are removed, counts that match, every
# communicator size's first message size 0; colltune's sizes also ascend.
check_rules_file() {
  python3 - "$1" <<'EOF'
import re, sys
nums = [int(x) for line in open(sys.argv[1])
        for x in re.sub(r"#.*", "", line).split()]
pos = 0
def take():
    global pos
    pos += 1
    return nums[pos - 1]
ncoll = take()
assert 0 < ncoll <= 17, ncoll
for _ in range(ncoll):
    cid, ncomm = take(), take()
    assert 0 <= cid < 17 and ncomm > 0, (cid, ncomm)
    last_comm = 0
    for _ in range(ncomm):
        comm, nmsg = take(), take()
        assert comm > last_comm and nmsg > 0, (cid, comm, nmsg)
        last_comm = comm
        last_msg = -1
        for k in range(nmsg):
            msg, alg, fan, seg = take(), take(), take(), take()
            assert (k == 0) == (msg == 0), (cid, comm, msg)
            assert msg > last_msg and alg >= 0, (cid, comm, msg, alg)
            last_msg = msg
assert pos == len(nums), "trailing numbers"
EOF
}

# --- Open MPI: a hand-written table with three size ranges --------------------
# 1024 doubles (8 KiB) stay with Open MPI's fixed decision, 2048 (16 KiB) run
# recursive doubling, 8192 (64 KiB) the linear algorithm.
table "$T/a.table" "Open MPI" <<'EOF'
section 4 profile=1 version=2
allreduce 0 16383 default
allreduce 16384 65535 native:recursive_doubling 1.2
allreduce 65536 inf native:basic_linear 1.1
bcast 0 inf bcast_as_scatter_allgather 1.5
EOF
check "ompi-rules export of a hand-written table" \
  "${CT[@]}" export --format ompi-rules --table "$T/a.table" -o "$T/a.rules"
check "the rules file has the shape Open MPI's parser demands" check_rules_file "$T/a.rules"
check "the rules file names its source and the table's sections" \
  grep -q "^# Source: table file .*a.table" "$T/a.rules"
fixed_1024=$(ompi_fixed 1024)
fixed_2048=$(ompi_fixed 2048)
fixed_8192=$(ompi_fixed 8192)
rd_1024=$(ompi_forced 1024 recursive_doubling)
rd_2048=$(ompi_forced 2048 recursive_doubling)
lin_8192=$(ompi_forced 8192 basic_linear)
differ "Open MPI's fixed decision is not recursive doubling at 8 KiB (the check can tell)" \
  "$fixed_1024" "$rd_1024"
same "below the tuned ranges the file leaves Open MPI's fixed decision" \
  "$(ompi_file 1024 "$T/a.rules")" "$fixed_1024"
differ "at 16 KiB forced recursive doubling is not the fixed decision" "$rd_2048" "$fixed_2048"
same "at 16 KiB the file runs what forcing recursive_doubling runs" \
  "$(ompi_file 2048 "$T/a.rules")" "$rd_2048"
differ "at 64 KiB forced basic_linear is not the fixed decision" "$lin_8192" "$fixed_8192"
same "at 64 KiB the file runs what forcing basic_linear runs" \
  "$(ompi_file 8192 "$T/a.rules")" "$lin_8192"

# The brief's size range: recursive doubling below 16 KiB, ring above. Ring
# is wrong for non-commutative operations and for derived datatypes whose
# data does not start at their origin, and Open MPI's rules cannot tell, so
# it is exported only with --assume-commutative and
# --assume-predefined-reductions.
table "$T/b.table" "Open MPI" <<'EOF'
section 4
allreduce 0 16383 native:recursive_doubling
allreduce 16384 inf native:ring
EOF
check "ompi-rules export with --assume-commutative --assume-predefined-reductions" \
  "${CT[@]}" export --format ompi-rules --table "$T/b.table" --assume-commutative \
  --assume-predefined-reductions -o "$T/b.rules"
ring_4096=$(ompi_forced 4096 ring)
differ "forced ring is not the fixed decision at 32 KiB" "$ring_4096" "$(ompi_fixed 4096)"
same "8 KiB (below the boundary) runs recursive doubling" \
  "$(ompi_file 1024 "$T/b.rules")" "$rd_1024"
same "32 KiB (above the boundary) runs ring" "$(ompi_file 4096 "$T/b.rules")" "$ring_4096"
expect_exit "without them ring is left out, with a note" 0 \
  "allreduce native:ring: Open MPI 4.1.4's own is wrong for some calls \(a non-commutative operation, a datatype whose data does not start at its origin\), which its file cannot tell apart \(--assume-commutative and --assume-predefined-reductions export it\)" \
  "${CT[@]}" export --format ompi-rules --table "$T/b.table" -o "$T/b2.rules"
expect_exit "with --assume-commutative alone ring is left out too" 0 \
  "allreduce native:ring: .*\(--assume-commutative and --assume-predefined-reductions export it\)" \
  "${CT[@]}" export --format ompi-rules --table "$T/b.table" --assume-commutative -o "$T/b3.rules"
same "... and Open MPI decides above the boundary there too" \
  "$(ompi_file 4096 "$T/b3.rules")" "$(ompi_fixed 4096)"
expect_exit "--assume-predefined-reductions is refused for mpich-json" 2 \
  "--assume-predefined-reductions is for --format ompi-rules" \
  "${CT[@]}" export --format mpich-json --table "$T/b.table" --assume-predefined-reductions
same "... and Open MPI decides above the boundary" \
  "$(ompi_file 4096 "$T/b2.rules")" "$(ompi_fixed 4096)"

# Communicator sizes: a section serves sizes within a factor of 2 of its own
# (as in the shim), Open MPI's fixed decision serves the others.
table "$T/c1.table" "Open MPI" <<<"section 1
allreduce 0 inf native:basic_linear"
table "$T/c4.table" "Open MPI" <<<"section 8
allreduce 0 inf native:basic_linear"
check "export of a section for 1 process" \
  "${CT[@]}" export --format ompi-rules --table "$T/c1.table" -o "$T/c1.rules"
check "export of a section for 8 processes" \
  "${CT[@]}" export --format ompi-rules --table "$T/c4.table" -o "$T/c4.rules"
same "a section for 1 process does not reach 4 processes" \
  "$(ompi_file 2048 "$T/c1.rules")" "$fixed_2048"
same "a section for 8 processes serves 4" \
  "$(ompi_file 2048 "$T/c4.rules")" "$(ompi_forced 2048 basic_linear)"

# A segmented variant carries its segment size into the rule's fourth field:
# the file runs what forcing segmented_ring with 16 KiB segments runs, which
# at 256 KiB is not the unsegmented algorithm.
table "$T/s.table" "Open MPI" <<'EOF'
section 4
allreduce 0 131071 default
allreduce 131072 inf native:segmented_ring_seg16k
EOF
check "ompi-rules export of a segmented variant" \
  "${CT[@]}" export --format ompi-rules --table "$T/s.table" --assume-commutative --assume-predefined-reductions -o "$T/s.rules"
check "... writes its segment size in the rule" \
  grep -Eq '^ *131072 5 4 16384 ' "$T/s.rules"
seg16k_32768=$(run_openmpi -np 4 "${DYN[@]}" --mca coll_tuned_allreduce_algorithm segmented_ring \
  --mca coll_tuned_allreduce_algorithm_segmentsize 16384 "$T/trace_ompi" 32768 2>/dev/null | sort)
differ "at 256 KiB 16 KiB segments change what segmented_ring runs" \
  "$seg16k_32768" "$(ompi_forced 32768 segmented_ring)"
same "at 256 KiB the file runs segmented_ring with 16 KiB segments" \
  "$(ompi_file 32768 "$T/s.rules")" "$seg16k_32768"

# Every collective Open MPI can tune, in one file: the 17 collectives all run
# right under it, and the file is read (an allreduce in it runs as forced).
table "$T/all.table" "Open MPI" <<'EOF'
section 4
allgather 0 1023 native:ring
allgather 1024 inf native:bruck
allgatherv 0 inf native:ring
allreduce 0 16383 native:recursive_doubling
allreduce 16384 inf native:segmented_ring
alltoall 0 1023 native:pairwise
alltoall 1024 inf native:modified_bruck
alltoallv 0 inf native:pairwise
barrier 0 inf native:bruck
bcast 0 1023 native:binomial
bcast 1024 inf native:pipeline
exscan 0 inf native:recursive_doubling
gather 0 inf native:binomial
reduce 0 1023 native:binary
reduce 1024 inf native:in-order_binary
reduce_scatter 0 1023 native:recursive_halving
reduce_scatter 1024 inf native:ring
reduce_scatter_block 0 1023 native:recursive_halving
reduce_scatter_block 1024 inf native:butterfly
scan 0 inf native:recursive_doubling
scatter 0 inf native:binomial
EOF
check "ompi-rules export of every collective" \
  "${CT[@]}" export --format ompi-rules --table "$T/all.table" --assume-commutative --assume-predefined-reductions \
  -o "$T/all.rules"
check "... has the shape Open MPI's parser demands" check_rules_file "$T/all.rules"
same "... is read by Open MPI (its allreduce rule runs)" \
  "$(ompi_file 1024 "$T/all.rules")" "$rd_1024"
for np in 3 4; do
  expect_exit "the 17 collectives give right results under it on $np processes" 0 \
    "collectives ok" run_openmpi -np $np "${DYN[@]}" \
    --mca coll_tuned_dynamic_rules_filename "$T/all.rules" "$T/colls_ompi" 16 300 4096
done

# --- Open MPI: errors ---------------------------------------------------------
table "$T/mock.table" "Open MPI" <<<"section 4
allreduce 0 inf allreduce_as_reduce_bcast"
expect_exit "a table without native choices is refused" 1 "no native choice for Open MPI" \
  "${CT[@]}" export --format ompi-rules --table "$T/mock.table"
table "$T/mpich.table" "MPICH" <<<"section 4
allreduce 0 inf native:smp"
expect_exit "an MPICH table is refused for ompi-rules" 1 "the table is for MPICH" \
  "${CT[@]}" export --format ompi-rules --table "$T/mpich.table"
table "$T/nolib.table" "" <<<"section 4
allreduce 0 inf default"
expect_exit "a table naming no library is refused" 1 "names no MPI library" \
  "${CT[@]}" export --format ompi-rules --table "$T/nolib.table"
table "$T/two.table" "Open MPI" <<'EOF'
section 4
allreduce 0 inf native:recursive_doubling
section 16
allreduce 0 inf native:ring
EOF
expect_exit "--comm-size takes one section" 0 "native choices for allreduce" \
  "${CT[@]}" export --format ompi-rules --table "$T/two.table" --comm-size 4 -o "$T/two.rules"
check "... and leaves the other section's sizes to Open MPI" \
  python3 -c 'import sys; t = open(sys.argv[1]).read(); assert "section 16" not in t, t' \
  "$T/two.rules"
expect_exit "--comm-size without a section names the sizes there are" 1 \
  "no section for 8 processes; its sections are for: 4, 16" \
  "${CT[@]}" export --format ompi-rules --table "$T/two.table" --comm-size 8
expect_exit "an unknown format is a usage error" 2 "ompi-rules" \
  "${CT[@]}" export --format intel --table "$T/a.table"
expect_exit "--format is required" 2 "format" "${CT[@]}" export --table "$T/a.table"
expect_exit "--table and daemon options exclude each other" 2 "excludes" \
  "${CT[@]}" export --format ompi-rules --table "$T/a.table" --cluster x
expect_exit "--mpich-base is refused for ompi-rules" 2 "for --format mpich-json" \
  "${CT[@]}" export --format ompi-rules --table "$T/a.table" --mpich-base "$T/a.table"
expect_exit "a missing table file is a usage error" 2 "" \
  "${CT[@]}" export --format ompi-rules --table "$T/none.table"

# --- MPICH --------------------------------------------------------------------
# MPICH's own choice for 2 KiB (recursive doubling for a user operation),
# its smp algorithm from 4 KiB.
table "$T/m.table" "MPICH" <<'EOF'
section 4
allreduce 0 4095 default
allreduce 4096 inf native:smp
EOF
check "mpich-json export of a hand-written table" \
  "${CT[@]}" export --format mpich-json --table "$T/m.table" -o "$T/m.json"
check "the file is JSON" \
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/m.json"
auto_256=$(mpich_auto 256)
smp_1024=$(mpich_forced 1024 smp)
differ "MPICH's smp is not its automatic choice at 8 KiB (the check can tell)" \
  "$smp_1024" "$(mpich_auto 1024)"
same "at 8 KiB the file runs what forcing smp runs" \
  "$(mpich_file 1024 "$T/m.json")" "$smp_1024"
same "at 2 KiB the file keeps MPICH's own choice" \
  "$(mpich_file 256 "$T/m.json")" "$auto_256"
# The file replaces MPICH's built-in tree: the export embeds it for every
# collective it does not tune. Without that, the first call of a collective
# missing from the file aborts (shown by taking one out).
for np in 3 4; do
  expect_exit "the 17 collectives give right results under it on $np processes" 0 \
    "collectives ok" mpich_with "$T/m.json" -np $np "$T/colls_mpich" 16 4096
done
python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
del t["collective=scan"]
json.dump(t, open(sys.argv[2], "w"))' "$T/m.json" "$T/noscan.json"
check_fails "(a file without scan aborts the collectives program: the check can fail)" \
  mpich_with "$T/noscan.json" -np 2 "$T/colls_mpich" 16

# Every collective tuned, algorithms with restrictions among them (smp needs
# a node hierarchy, recursive halving a commutative operation, ...): MPICH
# checks none of them in a selection file, the export guards each.
table "$T/mall.table" "MPICH" <<'EOF'
section 4
allgather 0 1023 native:ring
allgather 1024 inf native:recursive_doubling
allgatherv 0 1023 native:recursive_doubling
allgatherv 1024 inf native:brucks
allreduce 0 4095 native:reduce_scatter_allgather
allreduce 4096 inf native:smp
alltoall 0 1023 native:pairwise
alltoall 1024 inf native:scattered
alltoallv 0 inf native:pairwise_sendrecv_replace
alltoallw 0 inf native:nb
barrier 0 inf native:smp
bcast 0 1023 native:smp
bcast 1024 inf native:scatter_ring_allgather
exscan 0 inf native:nb
gather 0 inf native:nb
gatherv 0 inf native:nb
reduce 0 1023 native:smp
reduce 1024 inf native:reduce_scatter_gather
reduce_scatter 0 1023 native:noncommutative
reduce_scatter 1024 inf native:recursive_halving
reduce_scatter_block 0 1023 native:pairwise
reduce_scatter_block 1024 inf native:recursive_doubling
scan 0 inf native:smp
scatter 0 inf native:nb
scatterv 0 inf native:linear
EOF
check "mpich-json export of every collective" \
  "${CT[@]}" export --format mpich-json --table "$T/mall.table" -o "$T/mall.json"
same "... is read by MPICH (its allreduce rule runs)" \
  "$(mpich_file 1024 "$T/mall.json")" "$smp_1024"
for np in 2 3 4; do
  expect_exit "the 17 collectives give right results under it on $np processes" 0 \
    "collectives ok" mpich_with "$T/mall.json" -np $np "$T/colls_mpich" 16 300 4096
done
# A quirk (colltune quirks) keeps an algorithm out of MPICH's file, which
# cannot tell the calls it is wrong for apart; the file keeps MPICH's own
# choice for that collective.
left_out() {  # NAME COLLECTIVE ALGORITHM FORMS-PATTERN
  local name=$1 coll=$2 alg=$3 forms=$4
  printf 'section 4\nallreduce 0 inf native:recursive_doubling\n%s 0 inf %s\n' "$coll" "$alg" |
    table "$T/$coll.table" "MPICH"
  expect_exit "MPICH's $name is left out" 0 \
    "$coll $alg: MPICH 4.0.2's own is wrong for some calls \\($forms\\), which its file cannot tell apart" \
    "${CT[@]}" export --format mpich-json --table "$T/$coll.table" -o "$T/$coll.json"
  check "... so the file keeps MPICH's own $coll" python3 -c '
import json, sys
key = "collective=" + sys.argv[3]
assert json.load(open(sys.argv[1]))[key] == json.load(open(sys.argv[2]))[key]
' "$T/$coll.json" "$T/m.json" "$coll"
}
left_out "noncommutative reduce_scatter_block (breaks on gapped types)" \
  reduce_scatter_block native:noncommutative "a datatype with gaps"
left_out "alltoallw nb (wrong in place)" alltoallw native:nb "in place"
# The file is for the library installed here: a table measured with another
# version is refused, and so is an Open MPI whose algorithm numbers are not
# the ones the rules writer knows (a fake ompi_info first on PATH: one
# number moved).
{ echo "colltune-table 1"; echo "library MPICH"; echo "library_version 4.0.9"
  printf 'section 4\nallreduce 0 inf native:recursive_doubling\n'; } >"$T/v409.table"
expect_exit "a table of another MPICH version is refused" 1 \
  "measured with MPICH 4.0.9, the library here is 4.0.2" \
  "${CT[@]}" export --format mpich-json --table "$T/v409.table" -o "$T/v409.json"
check "... and nothing is written" test ! -e "$T/v409.json"
{ echo "colltune-table 1"; echo "library Open MPI"; echo "library_version 4.1.4"
  printf 'section 4\nallreduce 0 inf native:ring\n'; } >"$T/v414.table"
check "a table of the installed Open MPI version is written" \
  "${CT[@]}" export --format ompi-rules --assume-commutative --assume-predefined-reductions --table "$T/v414.table" -o "$T/v414.rules"
mkdir -p "$T/fakebin"
cat >"$T/fakebin/ompi_info" <<'FAKE'
#!/bin/sh
/usr/bin/ompi_info "$@" | sed 's/coll_tuned_bcast_algorithm:enumerator:value:6:binomial/coll_tuned_bcast_algorithm:enumerator:value:9:binomial/'
FAKE
chmod +x "$T/fakebin/ompi_info"
expect_exit "an Open MPI numbering its algorithms otherwise is refused" 1 \
  "bcast binomial: number 9 here, 6 in colltune's numbering" \
  env PATH="$T/fakebin:$PATH" "${CT[@]}" export --format ompi-rules --assume-commutative --assume-predefined-reductions \
  --table "$T/v414.table" -o "$T/moved.rules"
check "... and nothing is written" test ! -e "$T/moved.rules"
table "$T/scan.table" "MPICH" <<'EOF'
section 4
scan 0 1023 native:smp
scan 1024 inf native:recursive_doubling
EOF
expect_exit "a size-dependent scan choice is left to MPICH, which has no size condition for scan" \
  1 "scan's choice changes with the message size" \
  "${CT[@]}" export --format mpich-json --table "$T/scan.table"
expect_exit "an Open MPI table is refused for mpich-json" 1 "the table is for Open MPI" \
  "${CT[@]}" export --format mpich-json --table "$T/a.table"
expect_exit "a file that is not MPICH's library has no built-in tree" 1 \
  "no built-in MPIR selection tree found" \
  "${CT[@]}" export --format mpich-json --table "$T/m.table" --mpich-library "$T/a.table"
check "--mpich-base starts from a given tree" \
  "${CT[@]}" export --format mpich-json --table "$T/m.table" --mpich-base "$T/m.json" \
  -o "$T/m2.json"
same "... which MPICH reads" "$(mpich_file 1024 "$T/m2.json")" "$smp_1024"

# --- From the daemon ----------------------------------------------------------
SOCK="$T/d.sock"
TOKEN="$T/admin.token"
head -c 32 /dev/urandom | base64 > "$TOKEN"
if ! start_daemon "$COLLTUNED" "$T/d.db" "$SOCK" --admin-token-file "$TOKEN"; then
  fail "colltuned starts" "$(cat "$T_TMP/daemon.log")"
  finish; exit 1
fi
D=("$COLLTUNE_CLI" --server "unix:$SOCK")
check "an Open MPI profile is seeded" \
  run_openmpi -np 4 "$SEED" --server "unix:$SOCK" allreduce:allreduce_as_reduce_bcast:65536
check "an MPICH profile is seeded" \
  run_mpich -np 4 "$SEED_MPICH" --server "unix:$SOCK" allreduce:allreduce_as_reduce_bcast:65536
expect_exit "the daemon's table without native choices is refused" 1 "no native choice for Open MPI" \
  "${D[@]}" export --format ompi-rules
profile() {  # LIBRARY: its profile id
  "${D[@]}" profiles --library "$1" --json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["id"])'
}
check "a native choice is pinned in the Open MPI profile" \
  "${D[@]}" --admin-token-file "$TOKEN" pin --profile "$(profile "Open MPI")" \
  --collective allreduce --algorithm native:recursive_doubling --max-bytes 32767
expect_fail "a pin of native:han (a whole-job choice) is refused" "not per call" \
  "${D[@]}" --admin-token-file "$TOKEN" pin --profile "$(profile "Open MPI")" \
  --collective allreduce --algorithm native:han
expect_exit "han-rules needs a profile" 2 "needs --profile" "${D[@]}" export --format han-rules
expect_exit "--profile is for han-rules only" 2 "is for --format han-rules" \
  "${D[@]}" export --format ompi-rules --profile "$(profile "Open MPI")"
expect_fail "han-rules from a profile without coll/han timings says how to get them" \
  "no timings of native:han .*--whole-job han" \
  "${D[@]}" export --format han-rules --profile "$(profile "Open MPI")"
expect_fail "han-rules from an MPICH profile is refused" "are for Open MPI's coll/han" \
  "${D[@]}" export --format han-rules --profile "$(profile MPICH)"
check "a native choice is pinned in the MPICH profile" \
  "${D[@]}" --admin-token-file "$TOKEN" pin --profile "$(profile MPICH)" \
  --collective allreduce --algorithm native:smp --min-bytes 4096
check "ompi-rules export from the daemon" "${D[@]}" export --format ompi-rules -o "$T/d.rules"
check "... names the daemon as its source" grep -q "^# Source: colltuned at unix:" "$T/d.rules"
check "... and says that no layout was asked for" grep -q "^# Source: .*, no layout given" "$T/d.rules"
check "ompi-rules export for jobs of one layout" \
  "${D[@]}" export --format ompi-rules --nodes 1 --ppn 4 -o "$T/d14.rules"
check "... names that layout" grep -Eq "^# Source: .*, jobs on 1 node \(1 x 4\)" "$T/d14.rules"
same "... and Open MPI runs the pinned recursive doubling" \
  "$(ompi_file 2048 "$T/d.rules")" "$rd_2048"
check "mpich-json export from the daemon (--comm-size 4)" \
  "${D[@]}" export --format mpich-json --comm-size 4 -o "$T/d.json"
same "... and MPICH runs the pinned smp" "$(mpich_file 1024 "$T/d.json")" "$smp_1024"
expect_exit "--comm-size without a section in the daemon's table names the sizes" 1 \
  "no section for 2 processes; its sections are for: 4" \
  "${D[@]}" export --format ompi-rules --comm-size 2
expect_exit "a library the daemon has no profile of is refused" 1 "the table is for Intel MPI" \
  "${D[@]}" export --format ompi-rules --library "Intel MPI"
expect_exit "a cluster the daemon has no profile of says so" 1 "colltuned has no profile" \
  "${D[@]}" export --format ompi-rules --cluster elsewhere

# --- Every collective's numbering, fingerprinted ------------------------------
# For each collective Open MPI numbers, an exported file choosing one of its
# algorithms must run what Open MPI runs when that algorithm is forced by
# name (its own parser, not colltune's numbering). The fingerprint is the
# point-to-point traffic of the collectives program as Open MPI's own pml
# monitoring counts it (messages and bytes per pair of ranks).
mon_fp() {  # [mpirun options...]: md5 of the traffic, empty if none recorded
  rm -rf "$T/mon"; mkdir -p "$T/mon"
  run_openmpi -np 4 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
    --mca pml_monitoring_filename "$T/mon/m" "$@" "$T/colls_ompi" 64 4096 >/dev/null 2>&1
  local lines
  lines=$(cat "$T"/mon/*.prof 2>/dev/null | grep -E "^[IEC]"$'\t' | cut -f1-5 | sort)
  [ -n "$lines" ] && md5sum <<<"$lines" | cut -d' ' -f1
}
default_fp=$(mon_fp)
distinct=0
while read -r coll alg; do
  table "$T/one.table" "Open MPI" <<EOF
section 4
$coll 0 inf $alg
EOF
  if ! "${CT[@]}" export --format ompi-rules --table "$T/one.table" -o "$T/one.rules" 2>/dev/null; then
    fail "Open MPI $coll $alg: exported" "$("${CT[@]}" export --format ompi-rules --table "$T/one.table" 2>&1)"
    continue
  fi
  by_file=$(mon_fp "${DYN[@]}" --mca coll_tuned_dynamic_rules_filename "$T/one.rules")
  by_name=$(mon_fp "${DYN[@]}" --mca "coll_tuned_${coll}_algorithm" "${alg#native:}")
  same "Open MPI $coll $alg: the exported file runs what Open MPI forced by name runs" \
    "$by_file" "$by_name"
  [ -n "$by_file" ] && [ "$by_file" != "$default_fp" ] && distinct=$((distinct + 1))
done <<'LIST'
allgather native:ring
allgatherv native:ring
allreduce native:recursive_doubling
alltoall native:pairwise
alltoallv native:pairwise
barrier native:double_ring
bcast native:binomial
exscan native:recursive_doubling
gather native:binomial
reduce native:in-order_binary
reduce_scatter native:butterfly
reduce_scatter_block native:butterfly
scan native:recursive_doubling
scatter native:binomial
LIST
check "the fingerprints tell most choices from Open MPI's default ($distinct of 14)" \
  test "$distinct" -ge 10
# The check can fail: bcast's number changed (binomial to basic_linear: at 4
# processes binary_tree, next to it, sends what binomial sends) runs another
# algorithm.
printf 'section 4\nbcast 0 inf native:binomial\n' | table "$T/one.table" "Open MPI"
"${CT[@]}" export --format ompi-rules --table "$T/one.table" -o "$T/one.rules" 2>/dev/null
sed -E 's/^(  0 )6 /\11 /' "$T/one.rules" >"$T/moved.rules"
differ "(a file whose bcast number is moved runs something else: the check can fail)" \
  "$(mon_fp "${DYN[@]}" --mca coll_tuned_dynamic_rules_filename "$T/moved.rules")" \
  "$(mon_fp "${DYN[@]}" --mca coll_tuned_bcast_algorithm binomial)"

finish
