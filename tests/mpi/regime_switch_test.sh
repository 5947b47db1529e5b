#!/usr/bin/env bash
# The regime switch (shim/runtime/regime_switch.h), in real jobs under both
# libraries: a range whose table names one algorithm for calls back to back
# and another for calls after uneven work runs each in its regime, and the
# rule's own algorithm where the ranks do even work between calls; results
# stay right on every checked call, every rank takes the same turn (a
# rank-inconsistent probe would deadlock: every run has a timeout), and a
# table with a bad switch is refused as a whole.
#
# Args: regime_calls-openmpi regime_calls-mpich libcolltune.so libcolltune-mpich.so
source tests/lib/testlib.sh
args_as CALLS_OMPI CALLS_MPICH SHIM_OMPI SHIM_MPICH -- "$@"
MPI_TIMEOUT=120

TABLE=$T_TMP/switch.table
cat > "$TABLE" <<'T'
colltune-table 1
section *
allreduce 0 inf default loop=allreduce_as_reduce_bcast imbalance=allreduce_as_reducescatter_allgatherv
bcast 0 4095 bcast_as_allgatherv imbalance=bcast_as_scatter_allgather
allgather 0 inf allgather_as_allgatherv loop=allgather_as_gather_bcast
T

job() {  # job LIBRARY NP ARGS...: the job's output under the switching table
  local lib=$1 np=$2
  shift 2
  if [ "$lib" = openmpi ]; then
    run_openmpi -np "$np" -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_TABLE="$TABLE" \
      -x COLLTUNE_VERBOSE=2 "$CALLS_OMPI" "$@" 2>&1
  else
    run_mpich -np "$np" -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_TABLE "$TABLE" \
      -genv COLLTUNE_VERBOSE 2 "$CALLS_MPICH" "$@" 2>&1
  fi
}

# ran OUTPUT ALGORITHM: the calls of rank 0 that ran ALGORITHM (finalize line).
ran() { grep -oE "$2=[0-9]+" <<<"$1" | head -1 | cut -d= -f2; }

# Which regime a job is in is read on 2 processes: the machines running
# these tests have 2 cores, and more busy processes than cores make every
# call wait for a descheduled rank. On 3 and 4 processes the jobs only have
# to end with right results (below).
for setup in "openmpi 2" "mpich 2"; do
  set -- $setup
  lib=$1 np=$2
  # Back to back: the loop switch runs nearly every call (the first probe
  # comes at call 16).
  out=$(job "$lib" "$np" --mode loop --coll allreduce --bytes 8192 --iters 3000); rc=$?
  n=$(ran "$out" allreduce_as_reduce_bcast)
  if [ $rc -eq 0 ] && grep -q "regime_calls: ok" <<<"$out" &&
     grep -q "allreduce calls of 0-inf bytes found back to back" <<<"$out" &&
     [ "${n:-0}" -ge 2800 ]; then
    pass "$lib np=$np: back to back runs the loop switch ($n of 3000 calls)"
  else
    fail "$lib np=$np: back to back runs the loop switch" "rc=$rc ran=$n"$'\n'"$out"
  fi
  # Uneven work of up to 300 us before each call: the imbalance switch.
  out=$(job "$lib" "$np" --mode uneven --work 300 --coll allreduce --bytes 8192 --iters 600); rc=$?
  n=$(ran "$out" allreduce_as_reducescatter_allgatherv)
  if [ $rc -eq 0 ] && grep -q "regime_calls: ok" <<<"$out" &&
     grep -q "found after uneven work" <<<"$out" && [ "${n:-0}" -ge 450 ]; then
    pass "$lib np=$np: uneven work runs the imbalance switch ($n of 600 calls)"
  else
    fail "$lib np=$np: uneven work runs the imbalance switch" "rc=$rc ran=$n"$'\n'"$out"
  fi
  # Even work: the rule's algorithm (here default: no mock-up runs), no switch.
  out=$(job "$lib" "$np" --mode even --work 300 --coll allreduce --bytes 8192 --iters 600); rc=$?
  if [ $rc -eq 0 ] && grep -q "regime_calls: ok" <<<"$out" &&
     ! grep -q "regime switch" <<<"$out" && [ -z "$(ran "$out" allreduce_as_reduce_bcast)" ] &&
     [ -z "$(ran "$out" allreduce_as_reducescatter_allgatherv)" ]; then
    pass "$lib np=$np: even work keeps the rule's algorithm"
  else
    fail "$lib np=$np: even work keeps the rule's algorithm" "rc=$rc"$'\n'"$out"
  fi
  # A barrier between the calls, as OSU's benchmarks call them: synchronized,
  # however short the gap (64 KiB: the barrier takes a fraction of the call).
  out=$(job "$lib" "$np" --mode barrier --coll allreduce --bytes 65536 --iters 1500); rc=$?
  if [ $rc -eq 0 ] && grep -q "regime_calls: ok" <<<"$out" &&
     ! grep -q "regime switch" <<<"$out" && [ -z "$(ran "$out" allreduce_as_reduce_bcast)" ]; then
    pass "$lib np=$np: calls between barriers keep the rule's algorithm"
  else
    fail "$lib np=$np: calls between barriers keep the rule's algorithm" "rc=$rc"$'\n'"$out"
  fi
  # A switch for one regime only, on a rooted collective whose root moves:
  # back to back the rule's own algorithm runs; after uneven work the switch.
  out=$(job "$lib" "$np" --mode loop --coll bcast --bytes 1024 --iters 2000); rc=$?
  if [ $rc -eq 0 ] && grep -q "regime_calls: ok" <<<"$out" &&
     [ "$(ran "$out" bcast_as_allgatherv)" -ge 1800 ] 2>/dev/null &&
     [ -z "$(ran "$out" bcast_as_scatter_allgather)" ]; then
    pass "$lib np=$np: a regime without a switch runs the rule's algorithm"
  else
    fail "$lib np=$np: a regime without a switch runs the rule's algorithm" "rc=$rc"$'\n'"$out"
  fi
  out=$(job "$lib" "$np" --mode uneven --work 200 --coll bcast --bytes 1024 --iters 600); rc=$?
  if [ $rc -eq 0 ] && grep -q "regime_calls: ok" <<<"$out" &&
     [ "$(ran "$out" bcast_as_scatter_allgather)" -ge 450 ] 2>/dev/null; then
    pass "$lib np=$np: bcast after uneven work runs its switch, the root moving"
  else
    fail "$lib np=$np: bcast after uneven work runs its switch" "rc=$rc"$'\n'"$out"
  fi
  out=$(job "$lib" "$np" --mode loop --coll allgather --bytes 64 --iters 2000); rc=$?
  if [ $rc -eq 0 ] && grep -q "regime_calls: ok" <<<"$out" &&
     [ "$(ran "$out" allgather_as_gather_bcast)" -ge 1800 ] 2>/dev/null; then
    pass "$lib np=$np: allgather back to back runs its switch"
  else
    fail "$lib np=$np: allgather back to back runs its switch" "rc=$rc"$'\n'"$out"
  fi
done

# Oversubscribed (more processes than cores), whatever the probes find:
# right results and no deadlock, every rank switching on the same call.
for setup in "openmpi 4" "openmpi 3" "mpich 3" "mpich 4"; do
  set -- $setup
  for coll in allreduce bcast allgather; do
    out=$(job "$1" "$2" --mode uneven --work 100 --coll "$coll" --bytes 4096 --iters 1500); rc=$?
    if [ $rc -eq 0 ] && grep -q "regime_calls: ok" <<<"$out"; then
      pass "$1 np=$2: $coll under a switching table, uneven work: right results"
    else
      fail "$1 np=$2: $coll under a switching table, uneven work" "rc=$rc"$'\n'"$out"
    fi
  done
done

# Bad input: a switch naming another collective's algorithm, or on a layout
# rule, rejects the table (the job runs the library's own algorithms).
for bad in "allreduce 0 inf default loop=bcast_as_allgatherv" \
           "allreduce 0 inf default loop=no_such_algorithm" \
           "bcast@tiled 0 inf default loop=bcast_as_allgatherv" \
           "allreduce 0 inf default loop=allreduce_as_reduce_bcast loop=allreduce_as_reduce_bcast"; do
  printf 'colltune-table 1\nsection *\n%s\n' "$bad" > "$T_TMP/bad.table"
  out=$(run_openmpi -np 2 -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_TABLE="$T_TMP/bad.table" \
        -x COLLTUNE_VERBOSE=1 "$CALLS_OMPI" --mode loop --iters 100 2>&1); rc=$?
  if [ $rc -eq 0 ] && grep -q "regime_calls: ok" <<<"$out" &&
     grep -q "line 3: .*ignoring it" <<<"$out" && grep -q "0 sections, 0 rules" <<<"$out" &&
     grep -q "mock-ups: none" <<<"$out"; then
    pass "a bad switch rejects the table: $bad"
  else
    fail "a bad switch rejects the table: $bad" "rc=$rc"$'\n'"$out"
  fi
done

finish
