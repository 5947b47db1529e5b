#!/usr/bin/env bash
# Seed 000's experiment mode (colltune-bench --irregular): every problem type
# and block size is measured, TUW's results equal the library's on every row
# (the benchmark checks them itself and says which rows differ), and the
# table has the paper's columns. Few repetitions: this checks the mode, not
# the machine's speed.
#
# Args: colltune-bench colltune-bench-mpich
source tests/lib/testlib.sh
args_as BENCH_OMPI BENCH_MPICH -- "$@"

run_mode() {  # run_mode LAUNCHER NP COLLECTIVE
  local launcher=$1 np=$2 coll=$3 out rc
  local args=(--irregular "$coll" --irregular-reps 3 --irregular-warmup 1)
  if [ "$launcher" = openmpi ]; then
    out=$(run_openmpi -np "$np" "$BENCH_OMPI" "${args[@]}" 2>&1)
  else
    out=$(run_mpich -np "$np" "$BENCH_MPICH" "${args[@]}" 2>&1)
  fi
  rc=$?
  local rows
  rows=$(grep -Ec '^(same|random|spikes|decreasing|alternating|two_blocks) ' <<<"$out")
  if [ $rc -eq 0 ] && [ "$rows" -eq 30 ] && grep -q "0 rows with wrong results" <<<"$out" &&
     grep -q "TUW_$( [ "$coll" = gatherv ] && echo Gatherv || echo Scatterv)" <<<"$out"; then
    pass "$launcher np=$np --irregular $coll: 30 rows, TUW equal to the library"
  else
    fail "$launcher np=$np --irregular $coll" "exit $rc, $rows rows"$'\n'"$out"
  fi
}

for coll in gatherv scatterv; do
  for np in 1 3 6; do run_mode openmpi "$np" "$coll"; done
  run_mode mpich 3 "$coll"
done
# A bad mode name is refused with a clear message.
out=$(run_openmpi -np 1 "$BENCH_OMPI" --irregular allgather 2>&1)
check "an unknown --irregular collective is refused" grep -q "allgather" <<<"$out"
finish
