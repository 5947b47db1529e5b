#!/usr/bin/env bash
# Every mock-up, forced through COLLTUNE_FORCE, leaves memory exactly as the
# library's own collective does (tests/mpi/differential.cc: every byte of
# canary-filled arenas, in place and out of place, buffers back to back and
# NULL where MPI allows, counts below the number of processes; floating-point
# sums within an error bound) on 1..8 processes under Open MPI (1..9 for the
# collectives added last, $LATER below) and 1..4 under MPICH, which refuses arguments Open
# MPI lets pass (aliased buffers), and the shim's summary confirms the mock-up
# really ran. Plain pass-through of every intercepted collective is checked
# the same way ($LATER's under both libraries).
#
# Args: colltune-cli differential-openmpi differential-mpich
#       libcolltune.so libcolltune-mpich.so
source tests/lib/testlib.sh
args_as COLLTUNE_CLI DIFF_OMPI DIFF_MPICH SHIM_OMPI SHIM_MPICH -- "$@"
CASES=${CASES:-40}  # random cases after the differential's 32 edge cases

# The algorithms to test: every (collective, algorithm) but default.
mapfile -t PAIRS < <("$COLLTUNE_CLI" algorithms | awk 'NR > 1 && $2 != "default" && $3 != "native" && $3 != "job" { print $1 " " $2 }')
[ "${#PAIRS[@]}" -gt 0 ] || fail "colltune algorithms lists mock-ups" "none listed"

ran_mockup() {  # ran_mockup ALG OUTPUT
  grep -Eq "ran mock-ups: .*\b$1=[1-9]" <<<"$2"
}

run_case() {  # run_case LAUNCHER NP SHIM DIFF COLL ALG [MEM_BYTES]
  local launcher=$1 np=$2 shim=$3 diff=$4 coll=$5 alg=$6 mem=${7:-64M} out
  local name="$launcher np=$np $alg"
  [ "$mem" = 64M ] || name="$name COLLTUNE_MEM_BYTES=$mem"
  if [ "$launcher" = openmpi ]; then
    out=$(run_openmpi -np "$np" -x LD_PRELOAD="$shim" -x COLLTUNE_FORCE="$coll=$alg" \
          -x COLLTUNE_MEM_BYTES="$mem" \
          -x COLLTUNE_VERBOSE=1 "$diff" --collective "$coll" --cases "$CASES" --seed "$np" 2>&1)
  else
    out=$(run_mpich -np "$np" -genv LD_PRELOAD "$shim" -genv COLLTUNE_FORCE "$coll=$alg" \
          -genv COLLTUNE_MEM_BYTES "$mem" \
          -genv COLLTUNE_VERBOSE 1 "$diff" --collective "$coll" --cases "$CASES" --seed "$np" 2>&1)
  fi
  local rc=$?
  if [ $rc -ne 0 ]; then
    fail "$name" "exit code $rc"$'\n'"$out"
  elif [ "$alg" != default ] && ! ran_mockup "$alg" "$out"; then
    fail "$name" "the shim did not report running $alg"$'\n'"$out"
  else
    pass "$name"
  fi
}

# The collectives added last also run on 9 processes under Open MPI (the
# others stop at 8 to keep the test's time down).
LATER="allgatherv alltoallv alltoallw barrier exscan reduce_scatter"

for pair in "${PAIRS[@]}"; do
  read -r coll alg <<<"$pair"
  nps="1 2 3 4 5 6 7 8"
  [[ " $LATER " == *" $coll "* ]] && nps="$nps 9"
  for np in $nps; do
    run_case openmpi "$np" "$SHIM_OMPI" "$DIFF_OMPI" "$coll" "$alg"
  done
  for np in 1 2 3 4; do
    run_case mpich "$np" "$SHIM_MPICH" "$DIFF_MPICH" "$coll" "$alg"
  done
  # Seed 000's trees: also 9 processes (a non-power of two past 8), and a
  # scratch budget of 4 KiB, which makes the degradation threshold 2 KiB so
  # that many subtrees send straight to the root (a wrong owner of a block
  # there deadlocks or misplaces data).
  if [[ $alg == *_tuw_tree ]]; then
    run_case openmpi 9 "$SHIM_OMPI" "$DIFF_OMPI" "$coll" "$alg"
    for np in 5 9; do
      run_case openmpi "$np" "$SHIM_OMPI" "$DIFF_OMPI" "$coll" "$alg" 4096
    done
    run_case mpich 3 "$SHIM_MPICH" "$DIFF_MPICH" "$coll" "$alg" 4096
  fi
done

# Pass-through: every intercepted collective, no algorithm forced.
for coll in allgather allgatherv allreduce alltoall alltoallv alltoallw barrier \
            bcast exscan gather gatherv reduce reduce_scatter reduce_scatter_block \
            scan scatter scatterv; do
  run_case openmpi 3 "$SHIM_OMPI" "$DIFF_OMPI" "$coll" default
done
for coll in $LATER; do
  run_case mpich 3 "$SHIM_MPICH" "$DIFF_MPICH" "$coll" default
done
finish
