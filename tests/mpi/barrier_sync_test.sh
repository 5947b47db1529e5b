#!/usr/bin/env bash
# MPI_Barrier synchronises under the shim, whatever runs it: no process
# leaves a barrier before the last one has entered (tests/mpi/barrier_sync.c:
# random sleeps before each barrier, CLOCK_MONOTONIC at entry and exit,
# min(exit) >= max(entry) in every round, on MPI_COMM_WORLD and a split
# communicator). Checked for the library's default, each barrier mock-up and
# each of the library's own barrier algorithms that colltune lists (forced
# by COLLTUNE_FORCE), on 2..6 processes under Open MPI and 2..3 under MPICH
# (which busy-polls: more processes than cores crawl); the shim's summary
# must confirm that the forced algorithm ran. And the check can fail: with
# MPI_Barrier replaced by nothing (--fake) it must.
#
# Args: colltune-cli barrier_sync-openmpi barrier_sync-mpich
#       libcolltune.so libcolltune-mpich.so
source tests/lib/testlib.sh
args_as COLLTUNE_CLI SYNC_OMPI SYNC_MPICH SHIM_OMPI SHIM_MPICH -- "$@"
ROUNDS=${ROUNDS:-150}

# Every barrier algorithm colltune names: mock-ups for both libraries, the
# natives for the library that has them.
mapfile -t MOCKUPS < <("$COLLTUNE_CLI" algorithms | awk '$1 == "barrier" && $2 != "default" && $3 != "native" && $3 != "job" { print $2 }')
mapfile -t NATIVES_OMPI < <("$COLLTUNE_CLI" algorithms --library 'Open MPI' | awk '$1 == "barrier" && $3 == "native" { print $2 }')
mapfile -t NATIVES_MPICH < <("$COLLTUNE_CLI" algorithms --library MPICH | awk '$1 == "barrier" && $3 == "native" { print $2 }')
[ "${#MOCKUPS[@]}" -ge 2 ] || fail "colltune algorithms lists the barrier mock-ups" "${MOCKUPS[*]}"
[ "${#NATIVES_OMPI[@]}" -ge 1 ] || fail "colltune algorithms lists Open MPI's barriers" "none"
[ "${#NATIVES_MPICH[@]}" -ge 1 ] || fail "colltune algorithms lists MPICH's barriers" "none"

ran() {  # ran ALG OUTPUT: the rank-0 summary counts ALG
  local alg=$1
  if [[ $alg == native:* ]]; then
    grep -Eq "native algorithms: .*${alg}=[1-9]" <<<"$2"
  else
    grep -Eq "ran mock-ups: .*\b${alg}=[1-9]" <<<"$2"
  fi
}

run_sync() {  # run_sync LIBRARY NP ALG [ARGS...]: prints the output, returns the status
  local lib=$1 np=$2 alg=$3
  shift 3
  if [ "$lib" = openmpi ]; then
    run_openmpi -np "$np" -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_FORCE="barrier=$alg" \
      -x COLLTUNE_VERBOSE=1 "$SYNC_OMPI" --rounds "$ROUNDS" --seed "$np" "$@" 2>&1
  else
    run_mpich -np "$np" -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_FORCE "barrier=$alg" \
      -genv COLLTUNE_VERBOSE 1 "$SYNC_MPICH" --rounds "$ROUNDS" --seed "$np" "$@" 2>&1
  fi
}

check_sync() {  # check_sync LIBRARY NP ALG
  local lib=$1 np=$2 alg=$3 out rc
  local name="$lib np=$np barrier=$alg"
  out=$(run_sync "$lib" "$np" "$alg")
  rc=$?
  if [ $rc -ne 0 ]; then
    fail "$name" "exit code $rc"$'\n'"$out"
  elif [ "$(grep -c ' 0 violations' <<<"$out")" -lt 2 ]; then
    fail "$name" "no verdict for both communicators"$'\n'"$out"
  elif [ "$alg" != default ] && ! ran "$alg" "$out"; then
    fail "$name" "the shim did not report running $alg"$'\n'"$out"
  else
    pass "$name"
  fi
}

check_fake() {  # check_fake LIBRARY NP: no barrier at all must be caught
  local lib=$1 np=$2 out rc
  out=$(run_sync "$lib" "$np" default --fake)
  rc=$?
  if [ $rc -ne 0 ] && grep -Eq ' [1-9][0-9]* violations' <<<"$out"; then
    pass "$lib np=$np: a barrier that does not synchronise is caught"
  else
    fail "$lib np=$np: a barrier that does not synchronise is caught" "exit code $rc"$'\n'"$out"
  fi
}

for np in 2 3 4 5 6; do
  for alg in default "${MOCKUPS[@]}" "${NATIVES_OMPI[@]}"; do
    # two_proc runs on two processes only (the catalogue's only_size): the
    # shim runs the default elsewhere, which would report no native run.
    [ "$alg" = native:two_proc ] && [ "$np" -ne 2 ] && continue
    check_sync openmpi "$np" "$alg"
  done
done
for np in 2 3; do
  for alg in default "${MOCKUPS[@]}" "${NATIVES_MPICH[@]}"; do
    check_sync mpich "$np" "$alg"
  done
done
check_fake openmpi 4
check_fake mpich 3
finish
