#!/usr/bin/env bash
# The shim's datatype classifier (shim/coll/datatype_class.h) under both
# libraries, on one and two processes: seed 003's layouts, absolute
# addresses, duplicates, freed and re-created handles, and user types whose
# names and attributes must stay (tests/mpi/datatype_class.cc checks them).
#
# Under the shim, a job's sampled calls name the derived layouts they used,
# and a table's layout rules (bcast@struct ...) run the packed and the
# normalized forms for derived data only, with every byte as the library's
# (tests/mpi/differential). datatype_class.cc also checks the normal forms
# themselves.
#
# Args: datatype_class_openmpi datatype_class_mpich libcolltune.so
#       libcolltune-mpich.so differential_openmpi differential_mpich
#       colltune-datatype-layouts mixed_layouts_openmpi mixed_layouts_mpich
source tests/lib/testlib.sh
args_as PROG_OMPI PROG_MPICH SHIM SHIM_MPICH DIFF_OMPI DIFF_MPICH LAYOUTS MIXED_OMPI MIXED_MPICH \
  -- "$@"

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

# Layout rules for every packed form and every class the differential's
# datatypes fall in; plain rules keep the default.
table=$(mktemp)
{
  echo "colltune-table 1"
  echo "section *"
  for coll in bcast allgather gather scatter alltoall; do
    for layout in tiled indexed struct nested; do
      echo "$coll@$layout 0 inf ${coll}_as_packed"
    done
  done
} >"$table"
for coll in bcast allgather gather scatter alltoall; do
  out=$(run_openmpi -np 3 -x LD_PRELOAD="$SHIM" -x COLLTUNE_TABLE="$table" \
        -x COLLTUNE_VERBOSE=1 "$DIFF_OMPI" --collective "$coll" --cases 60 --seed 5 2>&1)
  expect_output "Open MPI np=3 $coll: layout rules run ${coll}_as_packed, results as the library's" \
    $? "$out" "$coll: [0-9]+ cases, 0 failed" "ran mock-ups: .*${coll}_as_packed=[1-9]"
  # Under MPICH the differential gives scatter and alltoall dense types only
  # (MPICH's own defects with gaps there), so no packed form runs for them.
  ran="ran mock-ups: .*${coll}_as_packed=[1-9]"
  [[ $coll == scatter || $coll == alltoall ]] && ran="ran mock-ups: none"
  out=$(run_mpich -np 3 -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_TABLE "$table" \
        -genv COLLTUNE_VERBOSE 1 "$DIFF_MPICH" --collective "$coll" --cases 60 --seed 5 2>&1)
  expect_output "MPICH np=3 $coll: layout rules, results as the library's" \
    $? "$out" "$coll: [0-9]+ cases, 0 failed" "$ran"
done
# The normalized forms (the same type map described flat) for the layouts
# of more than one level or block size, and the contiguous forms (count
# elements as one contiguous type) for tiles, by layout rules.
{
  echo "colltune-table 1"
  echo "section *"
  for coll in bcast allgather gather scatter alltoall; do
    for layout in nested indexed struct; do echo "$coll@$layout 0 inf ${coll}_as_normalized"; done
    echo "$coll@tiled 0 inf ${coll}_as_contiguous"
  done
} >"$table"
for coll in bcast allgather alltoall; do
  out=$(run_openmpi -np 3 -x LD_PRELOAD="$SHIM" -x COLLTUNE_TABLE="$table" \
        -x COLLTUNE_VERBOSE=1 "$DIFF_OMPI" --collective "$coll" --cases 60 --seed 9 2>&1)
  expect_output "Open MPI np=3 $coll: layout rules run the normalized and contiguous forms, results as the library's" \
    $? "$out" "$coll: [0-9]+ cases, 0 failed" "ran mock-ups: .*${coll}_as_normalized=[1-9]" \
    "ran mock-ups: .*${coll}_as_contiguous=[1-9]"
done
out=$(run_mpich -np 3 -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_TABLE "$table" \
      -genv COLLTUNE_VERBOSE 1 "$DIFF_MPICH" --collective bcast --cases 60 --seed 9 2>&1)
expect_output "MPICH np=3 bcast: layout rules run the normalized and contiguous forms, results as the library's" \
  $? "$out" "bcast: [0-9]+ cases, 0 failed" "ran mock-ups: .*bcast_as_normalized=[1-9]" \
  "ran mock-ups: .*bcast_as_contiguous=[1-9]"
# Contiguous data never takes a layout rule.
out=$(run_openmpi -np 2 -x LD_PRELOAD="$SHIM" -x COLLTUNE_TABLE="$table" -x COLLTUNE_VERBOSE=1 \
      "$PROG_OMPI" 2>&1)
expect_output "a job without derived datatypes in its collectives runs no packed form" $? \
  "$out" "ran mock-ups: none"
# Data mixing basic types, described densely on rank 0 and with padding on
# the others: a whole-class struct rule is every rank's (the signature
# decides), so rank 0's dense data takes the packed form too, on bytes; a
# rule of one block size is each rank's own, and rank 0's dense data keeps
# the library's call.
printf 'colltune-table 1\nsection *\nbcast@struct 0 inf bcast_as_packed\nallgather@struct 0 inf allgather_as_packed\n' >"$table"
for coll in bcast allgather; do
  out=$(run_openmpi -np 3 -x LD_PRELOAD="$SHIM" -x COLLTUNE_TABLE="$table" -x COLLTUNE_VERBOSE=1 \
        "$MIXED_OMPI" "$coll" 5000 1 4 2>&1)
  expect_output "Open MPI np=3 $coll, one signature in two layouts: the struct rule is every rank's" \
    $? "$out" "$coll np=3 elements=5000: results verified" "rank 0 ran mock-ups: .*${coll}_as_packed=[1-9]"
  out=$(run_mpich -np 3 -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_TABLE "$table" \
        -genv COLLTUNE_VERBOSE 1 "$MIXED_MPICH" "$coll" 5000 2 4 2>&1)
  expect_output "MPICH np=3 $coll, one signature in two layouts: the struct rule is every rank's" \
    $? "$out" "$coll np=3 elements=5000: results verified" "rank 0 ran mock-ups: .*${coll}_as_packed=[1-9]"
done
printf 'colltune-table 1\nsection *\nbcast@struct/4B 0 inf bcast_as_packed\n' >"$table"
out=$(run_openmpi -np 3 -x LD_PRELOAD="$SHIM" -x COLLTUNE_TABLE="$table" -x COLLTUNE_VERBOSE=1 \
      "$MIXED_OMPI" bcast 5000 1 4 2>&1)
expect_output "... a rule of one block size is each rank's own: rank 0's dense data runs the library's" \
  $? "$out" "bcast np=3 elements=5000: results verified" "rank 0 ran mock-ups: none"
# A layout rule naming another algorithm rejects the table, and the job runs on.
printf 'colltune-table 1\nsection *\nbcast@struct 0 inf bcast_as_scatter_allgather\n' >"$table"
out=$(run_openmpi -np 2 -x LD_PRELOAD="$SHIM" -x COLLTUNE_TABLE="$table" -x COLLTUNE_VERBOSE=1 \
      "$PROG_OMPI" 2>&1)
expect_output "a layout rule naming another algorithm is refused with the line" $? "$out" \
  "may name default or bcast_as_packed" '^checks: 0 failed$'
rm -f "$table"
finish
