#!/usr/bin/env bash
# Rank consistency: a job mixing collectives on several communicators, with
# root-only arguments that are garbage elsewhere and MPI_IN_PLACE at roots
# only (tests/mpi/mixed.c), runs to a correct end with every algorithm forced
# in turn, and with a table whose ranges switch algorithms between message
# sizes. A rank-inconsistent choice would deadlock: every run has a timeout.
#
# Args: colltune mixed-openmpi mixed-mpich libcolltune.so libcolltune-mpich.so
source tests/lib/testlib.sh
args_as COLLTUNE_CLI MIXED_OMPI MIXED_MPICH SHIM_OMPI SHIM_MPICH -- "$@"
MPI_TIMEOUT=60

mapfile -t PAIRS < <("$COLLTUNE_CLI" algorithms | awk 'NR > 1 && $2 != "default" && $3 != "native" && $3 != "job" { print $1 "=" $2 }')

verdict() {  # verdict NAME EXIT OUTPUT
  if [ "$2" -eq 124 ] || [ "$2" -eq 137 ]; then
    fail "$1" "timed out: a deadlock"$'\n'"$3"
  elif [ "$2" -ne 0 ] || ! grep -q "mixed: ok" <<<"$3"; then
    fail "$1" "exit $2"$'\n'"$3"
  else
    pass "$1"
  fi
}

for pair in "${PAIRS[@]}"; do
  out=$(run_openmpi -np 5 -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_FORCE="$pair" "$MIXED_OMPI" 2>&1)
  verdict "openmpi np=5 $pair" $? "$out"
done
for pair in "${PAIRS[@]}"; do
  out=$(run_mpich -np 3 -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_FORCE "$pair" \
        "$MIXED_MPICH" --rounds 6 2>&1)
  verdict "mpich np=3 $pair" $? "$out"
done

# A table that switches algorithms between sizes for every collective, with
# sections for the communicator sizes of the job (5, and 2 and 3 for the
# splits), so neighbouring calls use different algorithms.
{
  echo "colltune-table 1"
  for section in 2 3 5; do
    echo "section $section"
    prev=""
    for pair in "${PAIRS[@]}"; do
      coll=${pair%%=*}
      alg=${pair#*=}
      [ "$coll" = "$prev" ] && continue  # the first algorithm of each
      prev=$coll
      echo "$coll 0 999 $alg"
      echo "$coll 16000 inf $alg"
    done
  done
} > "$T_TMP/switching.table"
second=$(awk -F= '{ c[$1]++; if (c[$1] == 2) print $0 }' <(printf '%s\n' "${PAIRS[@]}"))
for pair in $second; do
  coll=${pair%%=*}
  alg=${pair#*=}
  for section in 2 3 5; do
    sed -i "/^section $section\$/a $coll 1000 15999 $alg" "$T_TMP/switching.table"
  done
done
out=$(run_openmpi -np 5 -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_TABLE="$T_TMP/switching.table" \
      -x COLLTUNE_VERBOSE=1 "$MIXED_OMPI" 2>&1)
verdict "openmpi np=5 with a size-switching table" $? "$out"
if grep -q "table from file" <<<"$out" && grep -Eq "ran mock-ups: .*=[1-9]" <<<"$out"; then
  pass "the size-switching table was applied"
else
  fail "the size-switching table was applied" "$out"$'\n'"$(cat "$T_TMP/switching.table")"
fi
out=$(run_mpich -np 3 -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_TABLE "$T_TMP/switching.table" \
      "$MIXED_MPICH" --rounds 6 2>&1)
verdict "mpich np=3 with a size-switching table" $? "$out"

# The libraries' own algorithms in the same pattern: two native algorithms
# of each collective and a mock-up between them, on every communicator of the
# program (Open MPI: shadow communicators created mid-run, in the same call
# on every rank).
native_table() {  # native_table LIBRARY
  {
    echo "colltune-table 1"
    echo "library $1"
    for section in 2 3 5; do
      echo "section $section"
      "$COLLTUNE_CLI" algorithms --library "$1" |
        awk '$3 == "native" && $2 != "native:two_proc" { n[$1]++; if (n[$1] == 1) print $1, "0 999", $2; if (n[$1] == 2) print $1, "16000 inf", $2 }'
      for pair in "${PAIRS[@]}"; do
        coll=${pair%%=*}
        [ "$coll" = "$prev" ] && continue
        prev=$coll
        echo "$coll 1000 15999 ${pair#*=}"
      done
      prev=""
    done
  }
}
native_table "Open MPI" > "$T_TMP/native.table"
out=$(run_openmpi -np 5 -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_TABLE="$T_TMP/native.table" \
      -x COLLTUNE_VERBOSE=1 "$MIXED_OMPI" 2>&1)
verdict "openmpi np=5 with native algorithms switching by size" $? "$out"
check "Open MPI ran native algorithms from the table" grep -Eq "native algorithms: .*native:[a-z_-]+=[1-9]" <<<"$out"
native_table MPICH > "$T_TMP/native-mpich.table"
out=$(run_mpich -np 3 -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_TABLE "$T_TMP/native-mpich.table" \
      -genv COLLTUNE_VERBOSE 1 "$MIXED_MPICH" --rounds 6 2>&1)
verdict "mpich np=3 with native algorithms switching by size" $? "$out"
check "MPICH ran native algorithms from the table" grep -Eq "native algorithms: .*native:[a-z_-]+=[1-9]" <<<"$out"

# Online exploration at its most aggressive: every call is an event and a
# burst of exploration starts every 5th event of a bucket, from the first
# call, cycling through every eligible alternative, on every communicator of
# the mixed job (60 rounds, so each size recurs on each communicator). The schedule must be
# the same on every rank or the job deadlocks; the reports land in a spool
# directory (no daemon) and must show explored calls.
explore_env=(COLLTUNE_SPOOL_DIR="$T_TMP/spool" COLLTUNE_SAMPLE=1 COLLTUNE_EXPLORE=1
             COLLTUNE_EXPLORE_MIN_CALLS=0 COLLTUNE_VERBOSE=1)
ompi_env=()
for e in "${explore_env[@]}"; do ompi_env+=(-x "$e"); done
out=$(run_openmpi -np 5 -x LD_PRELOAD="$SHIM_OMPI" "${ompi_env[@]}" "$MIXED_OMPI" \
      --rounds 60 2>&1)
verdict "openmpi np=5 exploring on every call" $? "$out"
check "exploring ran mock-ups" grep -Eq "ran mock-ups: .*=[1-9]" <<<"$out"
check "the exploring job spooled a report with explored calls" python3 -c '
import glob, sys
files = glob.glob(sys.argv[1] + "/*.report")
assert len(files) == 1, files
lines = [l.split() for l in open(files[0]) if l.startswith("timing ")]
assert sum(int(l[8]) for l in lines) > 0, "no explored calls"
assert any(l[4] != "default" for l in lines), "no mock-up timed"
' "$T_TMP/spool"
# One node: a hierarchical mock-up there is a flat one plus communicators to
# build, so exploration leaves them out (no table here: only exploring could
# have run one). cluster_test.sh checks that a job on two nodes explores them.
check "a job on one node explores no hierarchical mock-up" python3 -c '
import glob, re, sys
lines = [l.split() for f in glob.glob(sys.argv[1] + "/*.report") for l in open(f)
         if l.startswith("timing ")]
hier = sorted({l[4] for l in lines if re.search(r"_as_(nodes|lanes)$", l[4])})
assert not hier, "explored on one node: " + " ".join(hier)
' "$T_TMP/spool"
out=$(run_openmpi -np 5 -x LD_PRELOAD="$SHIM_OMPI" "${ompi_env[@]}" \
      -x COLLTUNE_TABLE="$T_TMP/switching.table" "$MIXED_OMPI" --rounds 60 2>&1)
verdict "openmpi np=5 exploring on every call over a size-switching table" $? "$out"
mpich_env=()
for e in "${explore_env[@]}"; do mpich_env+=(-genv "${e%%=*}" "${e#*=}"); done
out=$(run_mpich -np 3 -genv LD_PRELOAD "$SHIM_MPICH" "${mpich_env[@]}" "$MIXED_MPICH" \
      --rounds 60 2>&1)
verdict "mpich np=3 exploring on every call" $? "$out"
finish
