#!/usr/bin/env bash
# The libraries' own algorithms (native:<name>), checked against the
# libraries themselves:
#  1. what colltune finds (colltune-bench --list-algorithms) is what the
#     library answers for the same name: Open MPI's ompi_info enumeration,
#     and the value each library parses from its own environment variable;
#  2. an algorithm forced by the shim runs what the library runs when forced
#     by its own means (a recording reduction operation tells algorithms
#     apart without timing: tests/mpi/native_trace.c), through
#     COLLTUNE_FORCE and through a table that switches algorithms by size, and
#     the user's communicator is never duplicated behind its back;
#  3. bad input keeps the default and says so: another library's algorithm,
#     a table made for another library, unknown names, dynamic rules off;
#  4. every native algorithm leaves memory exactly as the library's default
#     does (tests/mpi/differential.cc, as for the mock-ups; the elements MPI
#     leaves undefined may hold anything: the algorithm is the library's).
#     This found MPICH's noncommutative Reduce_scatter_block corrupting
#     memory on datatypes with gaps, and Open MPI's two_proc algorithms
#     failing on other sizes; at 1 to 5 processes (Open MPI) and 1 to 4
#     (MPICH), every form the differential has, including alltoallw blocks
#     passed as per-peer contiguous types, which found MPICH's alltoallw nb
#     wrong in place;
#  5. what fails is in the quirks table (common/quirks.h, `colltune quirks`)
#     and is refused for that form, by COLLTUNE_FORCE in one line and by a
#     table, with the default running those calls;
#  6. a write that fails on one rank only leaves every rank on the default;
#  7. under MPI_THREAD_MULTIPLE, with collectives on two communicators from
#     two threads at once and communicators made meanwhile: Open MPI runs the
#     table's native algorithm on MPI_COMM_WORLD (its shadows made inside
#     MPI_Init) and the default elsewhere, in C and in an mpi4py job; MPICH
#     runs none (its control is read at every call, process-wide); the
#     library's thread level stays what it granted.
#
# Args: bench-openmpi bench-mpich differential-openmpi differential-mpich
#       native_trace-openmpi native_trace-mpich cvar_value-openmpi
#       cvar_value-mpich libcolltune.so libcolltune-mpich.so colltune-cli
#       alltoallw_inplace-mpich cvar_write_fails-openmpi.so cvar_write_fails-mpich.so
#       mt_natives-openmpi mt_natives-mpich allreduce_shifted_type-openmpi
source tests/lib/testlib.sh
args_as BENCH_OMPI BENCH_MPICH DIFF_OMPI DIFF_MPICH TRACE_OMPI TRACE_MPICH \
  CVAR_OMPI CVAR_MPICH SHIM_OMPI SHIM_MPICH COLLTUNE_CLI QUIRK_MPICH \
  FAIL_OMPI FAIL_MPICH MT_OMPI MT_MPICH SHIFTED_OMPI -- "$@"
CASES=${CASES:-24}

# --- 1. Discovery ------------------------------------------------------------
# "collective native:name value" lines of what colltune-bench found.
natives_of() {  # natives_of openmpi|mpich
  if [ "$1" = openmpi ]; then
    run_openmpi -np 1 "$BENCH_OMPI" --list-algorithms 2>/dev/null
  else
    run_mpich -np 1 "$BENCH_MPICH" --list-algorithms 2>/dev/null
  fi | awk '$2 ~ /^native:/ && NF == 3 { print $1, $2, $3 }'
}
listed_of() {  # every native algorithm listed, tuned or not: "coll native:name value"
  run_openmpi -np 1 "$BENCH_OMPI" --list-algorithms 2>/dev/null |
    awk '$2 ~ /^native:/ && $2 !~ /_seg[0-9]+k$/ { print $1, $2, $3 }'
}
# colltune's segmented variants: "coll native:name_segNk value segment"
segmented_of() {
  run_openmpi -np 1 "$BENCH_OMPI" --list-algorithms 2>/dev/null |
    awk '$2 ~ /^native:.*_seg[0-9]+k$/ { sub(/,$/, "", $3); print $1, $2, $3, $6 }'
}
mapfile -t OMPI_LISTED < <(listed_of)
mapfile -t OMPI_NATIVES < <(natives_of openmpi)
mapfile -t MPICH_NATIVES < <(natives_of mpich)
check "colltune finds Open MPI's algorithms (${#OMPI_NATIVES[@]})" test "${#OMPI_NATIVES[@]}" -ge 30
check "colltune finds MPICH's algorithms (${#MPICH_NATIVES[@]})" test "${#MPICH_NATIVES[@]}" -ge 30

# Open MPI: the shim reaches coll/tuned's controls through the MCA variable
# functions MPI_T calls (shim/native/controls.h), so that MPI_Init does not
# start MPI_T, which registers every component's parameters first. Both ways
# must find the same algorithms with the same values, and the same refusals.
listing_by() {  # listing_by auto|mpi_t: the listing, then the notes (stderr), each sorted
  local err="$T_TMP/listing.err"
  run_openmpi -np 1 -x COLLTUNE_NATIVE_CONTROLS="$1" "$BENCH_OMPI" --list-algorithms 2>"$err" | sort
  echo "-- notes"
  sort "$err"
}
by_vars=$(listing_by auto)
by_mpit=$(listing_by mpi_t)
if [ -n "$by_vars" ] && [ "$by_vars" = "$by_mpit" ] && grep -q 'native:' <<<"$by_vars"; then
  pass "Open MPI: colltune finds the same algorithms, values and refusals through MCA variables as through MPI_T"
else
  fail "Open MPI: colltune finds the same algorithms, values and refusals through MCA variables as through MPI_T" \
    "$(diff <(echo "$by_vars") <(echo "$by_mpit"))"
fi
# A job whose table names a native algorithm: MPI_T is started only when
# asked for (tests/mpi/cvar_write_fails.c says so on stderr when it is).
mpit_starts() {  # mpit_starts auto|mpi_t
  run_openmpi -np 2 -x LD_PRELOAD="$SHIM_OMPI:$FAIL_OMPI" -x COLLTUNE_TEST_MPIT_CALLS=1 \
    -x COLLTUNE_NATIVE_CONTROLS="$1" -x COLLTUNE_FORCE=allreduce=native:ring \
    "$TRACE_OMPI" 1024 2>&1 | grep -c "MPI_T_init_thread called"
}
starts_vars=$(mpit_starts auto)
starts_mpit=$(mpit_starts mpi_t)
check "Open MPI: a job forcing a native algorithm does not start MPI_T (started $starts_vars times; with COLLTUNE_NATIVE_CONTROLS=mpi_t $starts_mpit)" \
  test "$starts_vars" = 0 -a "$starts_mpit" = 2
out=$(run_openmpi -np 1 -x COLLTUNE_NATIVE_CONTROLS=bogus "$BENCH_OMPI" --list-algorithms 2>&1)
check "a bad COLLTUNE_NATIVE_CONTROLS says so and finds the algorithms anyway" \
  bash -c "grep -q \"COLLTUNE_NATIVE_CONTROLS='bogus' is neither\" <<<\"\$1\" && grep -q 'native:ring' <<<\"\$1\"" _ "$out"

# Open MPI's own listing of each enumeration (ompi_info), value:"name".
ompi_info_values() {  # ompi_info_values COLLECTIVE -> "1 basic_linear" lines
  ompi_info --param coll tuned --level 9 2>/dev/null |
    grep -A3 "\"coll_tuned_$1_algorithm\"" | grep -m1 "Valid values:" |
    grep -o '[0-9]*:"[^"]*"' | tr -d '"' | tr ':' ' ' | awk '$1 > 0'
}
for coll in allreduce bcast reduce allgather allgatherv alltoallv barrier exscan reduce_scatter; do
  want=$(ompi_info_values "$coll" | sort)
  got=$(printf '%s\n' "${OMPI_LISTED[@]}" | awk -v c="$coll" '$1 == c { sub(/^native:/, "", $2); print $3, $2 }' | sort)
  if [ -n "$want" ] && [ "$want" = "$got" ]; then
    pass "Open MPI $coll: colltune's names and values are ompi_info's"
  else
    fail "Open MPI $coll: colltune's names and values are ompi_info's" "ompi_info:"$'\n'"$want"$'\n'"colltune:"$'\n'"$got"
  fi
done

# Open MPI 4.1.4 refuses MPI_T writes of coll_tuned_allgatherv_algorithm:
# its algorithms are listed, and none is offered for tuning.
refused=$(run_openmpi -np 1 "$BENCH_OMPI" --list-algorithms 2>/dev/null |
  grep -c "^allgatherv .*native:.*refuses to set it at run time")
check "Open MPI's allgatherv algorithms, which MPI_T cannot set, are listed as not tuned ($refused)" \
  test "$refused" -ge 1
check "... and none of them is offered" test -z "$(printf '%s\n' "${OMPI_NATIVES[@]}" | grep '^allgatherv ')"

# Each library parses an algorithm's name from its environment itself: the
# value it then holds must be the one colltune found for that name (MPICH
# aborts a job on an unlisted value, so a misread position would be fatal).
value_mismatches=""
for line in "${MPICH_NATIVES[@]}"; do
  read -r coll name value <<<"$line"
  var="MPIR_CVAR_${coll^^}_INTRA_ALGORITHM"
  got=$(run_mpich -np 1 -genv "$var" "${name#native:}" "$CVAR_MPICH" "$var" 2>&1)
  [ "$got" = "$value" ] || value_mismatches+=" $coll/$name(colltune $value, MPICH '$got')"
done
[ -z "$value_mismatches" ] && pass "MPICH holds colltune's value for each of its ${#MPICH_NATIVES[@]} algorithm names" ||
  fail "MPICH holds colltune's value for each algorithm name" "$value_mismatches"
value_mismatches=""
for line in "${OMPI_NATIVES[@]}"; do
  read -r coll name value <<<"$line"
  var="coll_tuned_${coll}_algorithm"
  got=$(run_openmpi -np 1 -x OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
        -x "OMPI_MCA_$var=${name#native:}" "$CVAR_OMPI" "$var" 2>&1)
  [ "$got" = "$value" ] || value_mismatches+=" $coll/$name(colltune $value, Open MPI '$got')"
done
[ -z "$value_mismatches" ] && pass "Open MPI holds colltune's value for each of its ${#OMPI_NATIVES[@]} algorithm names" ||
  fail "Open MPI holds colltune's value for each algorithm name" "$value_mismatches"

# --- 2. What runs ------------------------------------------------------------
# Per-rank fingerprints of allreduce at the given counts, sorted.
trace_ompi() {  # trace_ompi [mpirun options...] -- counts...
  local opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  run_openmpi -np 4 "${opts[@]}" "$TRACE_OMPI" "$@" 2>"$T_TMP/trace.err" | sort
}
trace_mpich() {
  local opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  run_mpich -np 4 "${opts[@]}" "$TRACE_MPICH" "$@" 2>"$T_TMP/trace.err" | sort
}
SHIM_O=(-x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_VERBOSE=1)
SHIM_M=(-genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_VERBOSE 1)

default_o=$(trace_ompi -- 1024)
distinct=""
for line in "${OMPI_NATIVES[@]}"; do
  read -r coll name value <<<"$line"
  [ "$coll" = allreduce ] || continue
  theirs=$(trace_ompi --mca coll_tuned_use_dynamic_rules 1 \
           --mca coll_tuned_allreduce_algorithm "$value" -- 1024)
  ours=$(trace_ompi "${SHIM_O[@]}" -x COLLTUNE_FORCE="allreduce=$name" -- 1024)
  if [ -n "$ours" ] && [ "$ours" = "$theirs" ] && ! grep -q WRONG <<<"$ours" &&
     grep -q "native algorithms: $name=1" "$T_TMP/trace.err"; then
    pass "Open MPI allreduce $name forced by the shim runs what Open MPI runs forced to $value"
  else
    fail "Open MPI allreduce $name forced by the shim runs what Open MPI runs forced to $value" \
      "Open MPI:"$'\n'"$theirs"$'\n'"shim:"$'\n'"$ours"$'\n'"$(cat "$T_TMP/trace.err")"
  fi
  [ "$ours" != "$default_o" ] && distinct+=" $name"
done
# The fingerprint can tell algorithms apart (else the checks above prove nothing).
check "Open MPI: forced algorithms differ from the default's fingerprint ($distinct)" \
  test "$(wc -w <<<"$distinct")" -ge 3
if [ -n "$ours" ] && ! grep -q 'copies=[1-9]' <<<"$ours"; then
  pass "the user's communicator is never duplicated (no attribute copy)"
else
  fail "the user's communicator is never duplicated (no attribute copy)" "$ours"
fi

default_m=$(trace_mpich -- 1024)
for name in native:smp native:recursive_doubling; do
  theirs=$(trace_mpich -genv MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM "${name#native:}" -- 1024)
  ours=$(trace_mpich "${SHIM_M[@]}" -genv COLLTUNE_FORCE "allreduce=$name" -- 1024)
  if [ -n "$ours" ] && [ "$ours" = "$theirs" ] &&
     grep -q "native algorithms: $name=1" "$T_TMP/trace.err"; then
    pass "MPICH allreduce $name forced by the shim runs what MPICH runs forced by name"
  else
    fail "MPICH allreduce $name forced by the shim runs what MPICH runs forced by name" \
      "MPICH:"$'\n'"$theirs"$'\n'"shim:"$'\n'"$ours"$'\n'"$(cat "$T_TMP/trace.err")"
  fi
done
check "MPICH: smp's fingerprint differs from the default's" \
  test "$(trace_mpich -genv MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM smp -- 1024)" != "$default_m"

# A table switching by size: recursive doubling for 512 B, ring for 8 KiB,
# in one job (two shadow communicators); each as Open MPI forced runs it.
cat >"$T_TMP/sized.table" <<'EOF'
colltune-table 1
library Open MPI
section 4
allreduce 0 1023 native:recursive_doubling
allreduce 1024 inf native:ring
EOF
rd=$(trace_ompi --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 3 -- 64 | sed 's/^count 64 //')
ring=$(trace_ompi --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4 -- 1024 | sed 's/^count 1024 //')
out=$(trace_ompi "${SHIM_O[@]}" -x COLLTUNE_TABLE="$T_TMP/sized.table" -- 64 1024)
small=$(grep '^count 64 ' <<<"$out" | sed 's/^count 64 //')
large=$(grep '^count 1024 ' <<<"$out" | sed 's/^count 1024 //')
if [ "$small" = "$rd" ] && [ "$large" = "$ring" ] && [ "$rd" != "$ring" ]; then
  pass "a table's native ranges run the library's algorithms by size"
else
  fail "a table's native ranges run the library's algorithms by size" \
    "want 64: $rd / 1024: $ring"$'\n'"got:"$'\n'"$out"$'\n'"$(cat "$T_TMP/trace.err")"
fi

# Segmented variants (native:<name>_seg<k>k): offered for Open MPI's
# segmenting algorithms with the base algorithm's value and the named size,
# and forced through the shim they run what Open MPI runs forced to the
# algorithm and that segment size; below two segments the default runs.
mapfile -t OMPI_SEGMENTED < <(segmented_of)
bad=""
for line in "${OMPI_SEGMENTED[@]}"; do
  read -r coll name value segment <<<"$line"
  base=${name%_seg*}
  want=$(printf '%s\n' "${OMPI_LISTED[@]}" | awk -v c="$coll" -v n="$base" '$1 == c && $2 == n { print $3 }')
  k=${name##*_seg}
  [ -n "$want" ] && [ "$value" = "$want" ] && [ "$segment" = "$(( ${k%k} * 1024 ))" ] ||
    bad+=" $coll/$name($value $segment, base $want)"
done
check "Open MPI: ${#OMPI_SEGMENTED[@]} segmented variants, each with its algorithm's value and its segment size$bad" \
  test "${#OMPI_SEGMENTED[@]}" -ge 20 -a -z "$bad"
check "MPICH offers no segmented variant" \
  test -z "$(run_mpich -np 1 "$BENCH_MPICH" --list-algorithms 2>/dev/null | grep -E 'native:.*_seg[0-9]+k')"
# 32768 doubles (256 KiB): segmented_ring with 16 KiB segments combines
# segments of blocks, unsegmented it runs the plain ring.
seg_value=$(printf '%s\n' "${OMPI_LISTED[@]}" | awk '$1 == "allreduce" && $2 == "native:segmented_ring" { print $3 }')
theirs=$(trace_ompi --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm "$seg_value" \
         --mca coll_tuned_allreduce_algorithm_segmentsize 16384 -- 32768)
unsegmented=$(trace_ompi "${SHIM_O[@]}" -x COLLTUNE_FORCE=allreduce=native:segmented_ring -- 32768)
ours=$(trace_ompi "${SHIM_O[@]}" -x COLLTUNE_FORCE=allreduce=native:segmented_ring_seg16k -- 32768)
if [ -n "$ours" ] && [ "$ours" = "$theirs" ] && [ "$ours" != "$unsegmented" ] &&
   ! grep -q WRONG <<<"$ours" &&
   grep -q "native algorithms: native:segmented_ring_seg16k=1" "$T_TMP/trace.err"; then
  pass "Open MPI allreduce native:segmented_ring_seg16k runs what Open MPI runs forced with 16 KiB segments"
else
  fail "Open MPI allreduce native:segmented_ring_seg16k runs what Open MPI runs forced with 16 KiB segments" \
    "Open MPI:"$'\n'"$theirs"$'\n'"shim:"$'\n'"$ours"$'\n'"unsegmented:"$'\n'"$unsegmented"$'\n'"$(cat "$T_TMP/trace.err")"
fi
# 2048 doubles (16 KiB): one segment, so the default runs.
out=$(trace_ompi "${SHIM_O[@]}" -x COLLTUNE_FORCE=allreduce=native:segmented_ring_seg16k -- 2048)
check "a segmented variant below two segments runs the default" \
  test -n "$out" -a "$out" = "$(trace_ompi -- 2048)"

# --- 3. Bad input ------------------------------------------------------------
# Another library's algorithm: default, one line under COLLTUNE_VERBOSE.
out=$(trace_ompi "${SHIM_O[@]}" -x COLLTUNE_FORCE=allreduce=native:smp -- 1024)
err=$(cat "$T_TMP/trace.err")
if [ "$out" = "$default_o" ] && [ "$(grep -c 'native:smp is not available under Open MPI' <<<"$err")" = 1 ]; then
  pass "MPICH's native:smp under Open MPI: the default runs, said once"
else
  fail "MPICH's native:smp under Open MPI: the default runs, said once" "$out"$'\n'"$err"
fi
# A table measured under MPICH: its native choices are never applied.
sed 's/^library Open MPI$/library MPICH/' "$T_TMP/sized.table" >"$T_TMP/foreign.table"
out=$(trace_ompi "${SHIM_O[@]}" -x COLLTUNE_TABLE="$T_TMP/foreign.table" -- 1024)
err=$(cat "$T_TMP/trace.err")
if [ "$out" = "$default_o" ] && grep -q "native algorithms are MPICH's; under Open MPI they are not applied" <<<"$err"; then
  pass "a table made for MPICH runs no native algorithm under Open MPI"
else
  fail "a table made for MPICH runs no native algorithm under Open MPI" "$out"$'\n'"$err"
fi
# Unknown names (another version's table, a typo): the default there, the
# rest of the table applies.
cat >"$T_TMP/unknown.table" <<'EOF'
colltune-table 1
library Open MPI
section 4
allreduce 0 1023 native:from_a_future_version
allreduce 1024 inf native:ring
EOF
out=$(trace_ompi "${SHIM_O[@]}" -x COLLTUNE_TABLE="$T_TMP/unknown.table" -- 64 1024)
err=$(cat "$T_TMP/trace.err")
if [ "$(grep '^count 1024 ' <<<"$out" | sed 's/^count 1024 //')" = "$ring" ] &&
   [ "$(grep '^count 64 ' <<<"$out")" = "$(trace_ompi -- 64)" ] &&
   grep -q "native:from_a_future_version' is unknown to this colltune" <<<"$err"; then
  pass "an unknown native name in a table runs the default there and is reported"
else
  fail "an unknown native name in a table runs the default there and is reported" "$out"$'\n'"$err"
fi
out=$(trace_ompi "${SHIM_O[@]}" -x COLLTUNE_FORCE=allreduce=native:rign -- 1024)
err=$(cat "$T_TMP/trace.err")
[ "$out" = "$default_o" ] && grep -q "unknown algorithm 'native:rign'" <<<"$err" &&
  pass "a typo in COLLTUNE_FORCE keeps the default and is reported" ||
  fail "a typo in COLLTUNE_FORCE keeps the default and is reported" "$out"$'\n'"$err"
# The user turned Open MPI's dynamic rules off: nothing can be forced, the
# job runs as the user asked.
out=$(trace_ompi "${SHIM_O[@]}" -x COLLTUNE_VERBOSE=2 -x OMPI_MCA_coll_tuned_use_dynamic_rules=0 \
      -x COLLTUNE_FORCE=allreduce=native:ring -- 1024)
err=$(cat "$T_TMP/trace.err")
[ "$out" = "$default_o" ] && grep -q "coll_tuned_use_dynamic_rules is off" <<<"$err" &&
  pass "dynamic rules off by the user: default, and why" ||
  fail "dynamic rules off by the user: default, and why" "$out"$'\n'"$err"

# --- 4. Memory, byte for byte ------------------------------------------------
run_diff() {  # run_diff openmpi|mpich NP COLL ALG
  local lib=$1 np=$2 coll=$3 alg=$4 out rc
  if [ "$lib" = openmpi ]; then
    out=$(run_openmpi -np "$np" -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_FORCE="$coll=$alg" \
          -x COLLTUNE_VERBOSE=1 "$DIFF_OMPI" --collective "$coll" --cases "$CASES" \
          --seed "$np" --undefined-free 2>&1)
  else
    out=$(run_mpich -np "$np" -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_FORCE "$coll=$alg" \
          -genv COLLTUNE_VERBOSE 1 "$DIFF_MPICH" --collective "$coll" --cases "$CASES" \
          --seed "$np" --undefined-free 2>&1)
  fi
  rc=$?
  if [ $rc -ne 0 ]; then
    fail "$lib np=$np $coll $alg" "exit code $rc"$'\n'"$out"
  elif ! grep -Eq "native algorithms: .*\b$alg=[1-9]" <<<"$out"; then
    fail "$lib np=$np $coll $alg" "the shim did not report running $alg"$'\n'"$out"
  else
    pass "$lib np=$np $coll $alg"
  fi
}
for line in "${OMPI_NATIVES[@]}"; do
  read -r coll name value <<<"$line"
  for np in 1 2 3 4 5; do
    # Runs on two processes only; elsewhere the default runs (not checked here).
    [ "$name" = native:two_proc ] && [ "$np" != 2 ] && continue
    run_diff openmpi "$np" "$coll" "$name"
  done
done
for line in "${MPICH_NATIVES[@]}"; do
  read -r coll name value <<<"$line"
  for np in 1 2 3 4; do run_diff mpich "$np" "$coll" "$name"; done
done

# --- 5. The quirks table (common/quirks.h) -----------------------------------
# MPICH 4.0.2's alltoallw nb is wrong in place when the receive types differ
# between peers. The evidence holds without colltune (if a new MPICH fixes it,
# this says so and the row gets its fixed_in)...
errors_of() {  # errors_of OUTPUT: the wrong elements all ranks counted
  awk '/^rank [0-9]+ errors/ { n += $4 } END { print n + 0 }' <<<"$1"
}
bad=$(errors_of "$(run_mpich -np 2 -genv MPIR_CVAR_ALLTOALLW_INTRA_ALGORITHM nb "$QUIRK_MPICH" 2>/dev/null)")
good=$(errors_of "$(run_mpich -np 2 -genv MPIR_CVAR_ALLTOALLW_INTRA_ALGORITHM auto "$QUIRK_MPICH" 2>/dev/null)")
if [ "$bad" -gt 0 ] && [ "$good" = 0 ]; then
  pass "MPICH's own alltoallw nb is wrong in place with per-peer types ($bad wrong elements; auto: 0)"
else
  fail "MPICH's own alltoallw nb is wrong in place with per-peer types" "nb: $bad wrong, auto: $good"
fi
# ... and `colltune quirks` lists it.
out=$("$COLLTUNE_CLI" quirks --library MPICH)
grep -q "alltoallw native:nb .*wrong for \[in place\]" <<<"$out" &&
  pass "colltune quirks lists MPICH's alltoallw nb in place" ||
  fail "colltune quirks lists MPICH's alltoallw nb in place" "$out"
# Forced: one line says it is refused in place, the default runs those calls
# (the program above passes), and nb still runs out of place.
out=$(run_mpich -np 2 -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_FORCE alltoallw=native:nb \
      "$QUIRK_MPICH" 2>&1)
lines=$(grep -c "COLLTUNE_FORCE alltoallw=native:nb is refused where MPICH 4.0.2's own algorithm is wrong (in place" <<<"$out")
if [ "$lines" = 1 ] && [ "$(errors_of "$out")" = 0 ] && grep -q "^rank 1 errors 0" <<<"$out"; then
  pass "COLLTUNE_FORCE=alltoallw=native:nb: refused in place in one line, the default runs there"
else
  fail "COLLTUNE_FORCE=alltoallw=native:nb: refused in place in one line, the default runs there" "$out"
fi
out=$(run_mpich -np 2 -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_FORCE alltoallw=native:nb \
      -genv COLLTUNE_VERBOSE 1 "$DIFF_MPICH" --collective alltoallw --cases 40 --seed 7 2>&1)
if grep -q "alltoallw: .* 0 failed" <<<"$out" && grep -Eq "native algorithms: .*native:nb=[1-9]" <<<"$out" &&
   grep -Eq "not eligible: .*native:nb=[1-9]" <<<"$out"; then
  pass "native:nb runs alltoallw out of place and the default in place"
else
  fail "native:nb runs alltoallw out of place and the default in place" "$out"
fi
# A table that names it: the default runs in place, and the log says why.
printf 'colltune-table 1\nlibrary MPICH\nsection *\nalltoallw 0 inf native:nb\n' >"$T_TMP/quirk.table"
out=$(run_mpich -np 2 -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_TABLE "$T_TMP/quirk.table" \
      -genv COLLTUNE_VERBOSE 1 "$QUIRK_MPICH" 2>&1)
if [ "$(errors_of "$out")" = 0 ] && grep -q "^rank 1 errors 0" <<<"$out" &&
   grep -q "the table's alltoallw=native:nb runs the default where MPICH 4.0.2's own algorithm is wrong (in place" <<<"$out"; then
  pass "a table naming alltoallw native:nb runs the default in place, and says why"
else
  fail "a table naming alltoallw native:nb runs the default in place, and says why" "$out"
fi

# Open MPI 4.1.4's ring allreduce writes past its temporary buffer on a
# datatype whose data starts after its origin: without colltune, forced by
# its own parameter, the program aborts (the heap is corrupt) although every
# element is right...
RING=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm)
out=$(run_openmpi -np 2 "${RING[@]}" 4 "$SHIFTED_OMPI" 8 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ "$(grep -c "^rank [01] done" <<<"$out")" -lt 2 ]; then
  pass "Open MPI's own ring allreduce corrupts the heap on a shifted datatype (exit $rc)"
else
  fail "Open MPI's own ring allreduce corrupts the heap on a shifted datatype" "rc=$rc"$'\n'"$out"
fi
out=$(run_openmpi -np 2 "${RING[@]}" 3 "$SHIFTED_OMPI" 8 2>&1)
expect_output "... its recursive doubling does not" $? "$out" "^rank 0 errors 0" "^rank 1 done"
# ... and forced through colltune, the default runs those calls (MPI wants
# the same datatype on every rank of a reduction, so every rank sees the
# same form), with one line saying so...
for alg in ring segmented_ring; do
  out=$(run_openmpi -np 2 -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_FORCE=allreduce=native:$alg \
        -x COLLTUNE_VERBOSE=1 "$SHIFTED_OMPI" 8 2>&1)
  expect_output "COLLTUNE_FORCE=allreduce=native:$alg: the default runs the shifted datatype" $? \
    "$out" "^rank 0 errors 0" "^rank 1 errors 0" "^rank 0 done" "^rank 1 done" \
    "refused where Open MPI 4.1.4's own algorithm is wrong \(.*a datatype whose data does not start at its origin" \
    "not eligible: .*native:$alg=[1-9]"
done
# ... while the same datatype with its data at its origin runs the ring.
out=$(run_openmpi -np 2 -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_FORCE=allreduce=native:ring \
      -x COLLTUNE_VERBOSE=1 "$SHIFTED_OMPI" 8 0 2>&1)
expect_output "... the ring still runs a datatype whose data starts at its origin" $? "$out" \
  "^rank 0 errors 0" "^rank 1 done" "native algorithms: .*native:ring=[1-9]"
out=$("$COLLTUNE_CLI" quirks --library "Open MPI")
grep -q "allreduce native:ring .*wrong for \[a datatype whose data does not start at its origin\]" <<<"$out" &&
  pass "colltune quirks lists Open MPI's ring allreduce on shifted datatypes" ||
  fail "colltune quirks lists Open MPI's ring allreduce on shifted datatypes" "$out"

# --- 6. Rank agreement ---------------------------------------------------------
# A step of forcing fails on rank 1 only (tests/mpi/cvar_write_fails.c,
# preloaded after the shim): every MPI_T write (the library refuses the
# control there), or the shadow communicator's creation (Open MPI). Every rank
# must then run the default together: the fingerprint of the default, no
# hang (run_* time out), and the algorithm counted as run on no rank.
# Open MPI's writes go through its MCA variables, or MPI_T when asked.
for mode in cvar_write comm_create cvar_write/mpi_t; do
  way=auto
  [ "$mode" = cvar_write/mpi_t ] && way=mpi_t
  out=$(trace_ompi -x LD_PRELOAD="$SHIM_OMPI:$FAIL_OMPI" -x COLLTUNE_VERBOSE=1 \
        -x COLLTUNE_TEST_FAIL_RANK=1 -x COLLTUNE_TEST_FAIL="${mode%/*}" \
        -x COLLTUNE_NATIVE_CONTROLS=$way -x COLLTUNE_FORCE=allreduce=native:ring -- 1024 1024)
  err=$(cat "$T_TMP/trace.err")
  want=$(trace_ompi -- 1024 1024)
  if [ -n "$out" ] && [ "$out" = "$want" ] && [ "$want" != "$(trace_ompi --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4 -- 1024 1024)" ]; then
    pass "Open MPI, $mode failing on rank 1: every rank runs the default"
  else
    fail "Open MPI, $mode failing on rank 1: every rank runs the default" \
      "want:"$'\n'"$want"$'\n'"got:"$'\n'"$out"$'\n'"$err"
  fi
done
out=$(trace_mpich -genv LD_PRELOAD "$SHIM_MPICH:$FAIL_MPICH" -genv COLLTUNE_VERBOSE 1 \
      -genv COLLTUNE_TEST_FAIL_RANK 1 -genv COLLTUNE_TEST_FAIL cvar_write \
      -genv COLLTUNE_FORCE allreduce=native:smp -- 1024 1024)
err=$(cat "$T_TMP/trace.err")
want=$(trace_mpich -- 1024 1024)
if [ -n "$out" ] && [ "$out" = "$want" ] && ! grep -Eq "native algorithms: .*native:smp=[1-9]" <<<"$err"; then
  pass "MPICH, cvar_write failing on rank 1: every rank runs the default"
else
  fail "MPICH, cvar_write failing on rank 1: every rank runs the default" \
    "want:"$'\n'"$want"$'\n'"got:"$'\n'"$out"$'\n'"$err"
fi
# --- 7. Threads --------------------------------------------------------------
# tests/mpi/mt_natives.c: per rank, the allreduce fingerprint of the thread on
# MPI_COMM_WORLD ("world") and of the thread on a duplicate ("dup"), which
# also makes and frees communicators while the other runs.
cat >"$T_TMP/mt.table" <<'EOF'
colltune-table 1
library Open MPI
section 4
allreduce 0 inf native:recursive_doubling
EOF
mt_o() { run_openmpi -np 4 "$@" 2>"$T_TMP/mt.err" | sort; }
mt_default=$(mt_o "$MT_OMPI" 20)
mt_rd=$(mt_o --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 3 "$MT_OMPI" 20)
mt_shim=$(mt_o "${SHIM_O[@]}" -x COLLTUNE_TABLE="$T_TMP/mt.table" "$MT_OMPI" 20)
mt_err=$(cat "$T_TMP/mt.err")
check "threads: recursive doubling's fingerprint differs from the default's" \
  test "$(grep '^world' <<<"$mt_rd")" != "$(grep '^world' <<<"$mt_default")"
if [ -n "$mt_shim" ] && ! grep -q WRONG <<<"$mt_shim" &&
   [ "$(grep '^world' <<<"$mt_shim")" = "$(grep '^world' <<<"$mt_rd")" ] &&
   [ "$(grep '^dup' <<<"$mt_shim")" = "$(grep '^dup' <<<"$mt_default")" ] &&
   grep -q "native algorithms: native:recursive_doubling=20" <<<"$mt_err"; then
  pass "Open MPI, MPI_THREAD_MULTIPLE: the table's native algorithm runs on MPI_COMM_WORLD, the default on the other thread's communicator"
else
  fail "Open MPI, MPI_THREAD_MULTIPLE: the table's native algorithm runs on MPI_COMM_WORLD, the default on the other thread's communicator" \
    "default:"$'\n'"$mt_default"$'\n'"forced by Open MPI:"$'\n'"$mt_rd"$'\n'"shim:"$'\n'"$mt_shim"$'\n'"$mt_err"
fi

# mpi4py initializes at MPI_THREAD_MULTIPLE by default: a Python job gets
# the native algorithm on MPI_COMM_WORLD too (a Python reduction operation
# records the lengths), and keeps the thread level it was granted.
cat >"$T_TMP/mt_job.py" <<'EOF'
import array
from mpi4py import MPI
lengths = []
def record(inbuf, inoutbuf, datatype):
    a = memoryview(inbuf).cast('B').cast('d')
    b = memoryview(inoutbuf).cast('B').cast('d')
    for i in range(len(a)):
        b[i] += a[i]
    lengths.append(len(a))
op = MPI.Op.Create(record, commute=True)
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
n = 1024
send = array.array('d', [rank + 1 + i for i in range(n)])
recv = array.array('d', [0.0] * n)
comm.Allreduce([send, MPI.DOUBLE], [recv, MPI.DOUBLE], op=op)
ok = all(recv[i] == size * (size + 1) / 2 + size * i for i in range(n))
line = "python rank %d: thread=%d lengths=%s%s" % (rank, MPI.Query_thread(),
       ",".join(map(str, sorted(lengths))), "" if ok else " WRONG")
# One writer: ranks' output forwarded by mpirun may interleave mid-line.
lines = comm.gather(line, root=0)
if rank == 0:
    print("\n".join(lines))
EOF
py_default=$(mt_o /usr/bin/python3 "$T_TMP/mt_job.py")
py_rd=$(mt_o --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 3 \
        /usr/bin/python3 "$T_TMP/mt_job.py")
py_shim=$(mt_o "${SHIM_O[@]}" -x COLLTUNE_TABLE="$T_TMP/mt.table" /usr/bin/python3 "$T_TMP/mt_job.py")
if [ -n "$py_shim" ] && [ "$py_shim" = "$py_rd" ] && [ "$py_rd" != "$py_default" ] &&
   [ "$(grep -c 'thread=3 ' <<<"$py_shim")" = 4 ]; then
  pass "Open MPI, an mpi4py job (MPI_THREAD_MULTIPLE): the table's native algorithm runs, the thread level stays"
else
  fail "Open MPI, an mpi4py job (MPI_THREAD_MULTIPLE): the table's native algorithm runs, the thread level stays" \
    "default:"$'\n'"$py_default"$'\n'"forced by Open MPI:"$'\n'"$py_rd"$'\n'"shim:"$'\n'"$py_shim"$'\n'"$(cat "$T_TMP/mt.err")"
fi

# MPICH: no native algorithm under MPI_THREAD_MULTIPLE, said why; results right.
cat >"$T_TMP/mt_mpich.table" <<'EOF'
colltune-table 1
library MPICH
section 2
allreduce 0 inf native:recursive_doubling
EOF
mt_m=$(run_mpich -np 2 -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_VERBOSE 2 \
       -genv COLLTUNE_TABLE "$T_TMP/mt_mpich.table" "$MT_MPICH" 20 2>"$T_TMP/mt.err" | sort)
mt_err=$(cat "$T_TMP/mt.err")
if [ "$(grep -c '^world\|^dup' <<<"$mt_m")" = 4 ] && ! grep -q WRONG <<<"$mt_m" &&
   grep -q "not under MPI_THREAD_MULTIPLE (MPICH reads its control at every call" <<<"$mt_err" &&
   grep -q "native algorithms: none" <<<"$mt_err"; then
  pass "MPICH, MPI_THREAD_MULTIPLE: no native algorithm runs, the shim says why, results are right"
else
  fail "MPICH, MPI_THREAD_MULTIPLE: no native algorithm runs, the shim says why, results are right" \
    "$mt_m"$'\n'"$mt_err"
fi
finish
