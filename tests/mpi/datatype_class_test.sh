#!/usr/bin/env bash
# The shim's datatype classifier (shim/coll/datatype_class.h) under both
# libraries, on one and two processes: seed 003's layouts, absolute
# addresses, duplicates, freed and re-created handles, and user types whose
# names and attributes must stay (tests/mpi/datatype_class.cc checks them).
#
# Under the shim, a job's sampled calls name the derived layouts they used.
#
# Args: datatype_class_openmpi datatype_class_mpich libcolltune.so
#       colltune-datatype-layouts
source tests/lib/testlib.sh
args_as PROG_OMPI PROG_MPICH SHIM LAYOUTS -- "$@"

for np in 1 2; do
  out=$(run_openmpi -np "$np" "$PROG_OMPI" 2>&1)
  expect_output "Open MPI np=$np: every layout classified as expected" $? "$out" \
    '^PASS tiled A=2: tiled/8B$' '^PASS heterogeneous struct' '^PASS re-created handles' \
    '^checks: 0 failed$'
  out=$(run_mpich -np "$np" "$PROG_MPICH" 2>&1)
  expect_output "MPICH np=$np: every layout classified as expected" $? "$out" \
    '^PASS tiled A=2: tiled/8B$' '^PASS heterogeneous struct' '^PASS re-created handles' \
    '^checks: 0 failed$'
done

spool=$(mktemp -d)
out=$(run_openmpi -np 2 -x LD_PRELOAD="$SHIM" -x COLLTUNE_VERBOSE=1 -x COLLTUNE_REPORT=1 \
  -x COLLTUNE_CACHE_DIR="$spool" -x COLLTUNE_SERVER= "$LAYOUTS" --calls 20 --rounds 1 2>&1)
expect_output "the finalize line names the derived layouts of sampled calls" $? "$out" \
  '^bcast struct A=100 1048576 derived_us' \
  'sampled calls with derived datatypes .*bcast struct/4B,mixed' \
  'sampled calls with derived datatypes .*bcast tiled/'
rm -rf "$spool"
finish
