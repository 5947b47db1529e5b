#!/usr/bin/env bash
# Every way into MPI reaches the shim:
#  * Fortran, in its three bindings (mpif.h, use mpi, use mpi_f08): every
#    wrapped collective, out of place and in place, on two communicators,
#    with a mock-up forced for each (fortran_collectives.F90, built here with
#    the libraries' mpif90); and a mixed program whose C and Fortran halves
#    both call MPI_Allreduce;
#  * MPI loaded later by dlopen with RTLD_LOCAL (a host program without MPI
#    loading an MPI plugin, as Python, Julia and R do; and real Python and
#    R jobs with Debian's mpi4py and Rmpi);
#  * the shim linked into the program (-lcolltune) instead of preloaded;
#  * MPI-4 sessions (MPICH): no MPI_Init, so the shim stays out of the way
#    and collectives on a communicator made from a process set pass through.
# Each job runs under both libraries (mpi4py: Open MPI, which Debian builds
# it for) at 3 and 4 processes, natively and under the shim: its results
# must be right and the shim's summary must show the forced mock-ups ran on
# every call the program says it made (the shim really sat in the job, it
# did not just not crash).
#
# Args: libcolltune.so libcolltune-mpich.so dlopen_host plugin-openmpi.so
#       plugin-mpich.so linked_openmpi linked_mpich mpi4py_job.py no_mpi
#       fortran_collectives.F90 mixed_main.c mixed_solver.f90 sessions_mpich
#       fortran_bad_input.F90 rmpi_job.R
source tests/lib/testlib.sh
args_as SHIM_OMPI SHIM_MPICH HOST PLUGIN_OMPI PLUGIN_MPICH LINKED_OMPI \
  LINKED_MPICH PYJOB NO_MPI FORTRAN_SRC MIXED_C MIXED_F SESSIONS BAD_SRC \
  RJOB -- "$@"
FORCE=allreduce=allreduce_as_reduce_bcast

# expect NAME CALLS OUTPUT RC: right results, and the mock-up ran CALLS times.
expect() {
  local name=$1 calls=$2 out=$3 rc=$4
  if [ "$rc" -ne 0 ]; then
    fail "$name" "exit code $rc"$'\n'"$out"
  elif ! grep -Eq ", 0 wrong results" <<<"$out"; then
    fail "$name" "wrong results"$'\n'"$out"
  elif [ -n "$calls" ] && ! grep -Eq "ran mock-ups: .*\ballreduce_as_reduce_bcast=$calls\b" <<<"$out"; then
    fail "$name" "the shim did not run the mock-up on all $calls calls"$'\n'"$out"
  else
    pass "$name"
  fi
}

ompi() {  # ompi NP [LD_PRELOAD] PROGRAM ARGS...
  local np=$1 preload=$2
  shift 2
  local env=(-x COLLTUNE_VERBOSE=1 -x COLLTUNE_FORCE=$FORCE)
  [ -n "$preload" ] && env+=(-x LD_PRELOAD="$preload")
  run_openmpi -np "$np" "${env[@]}" "$@" 2>&1
}

mpich() {  # mpich NP [LD_PRELOAD] PROGRAM ARGS...
  local np=$1 preload=$2
  shift 2
  local env=(-genv COLLTUNE_VERBOSE 1 -genv COLLTUNE_FORCE $FORCE)
  [ -n "$preload" ] && env+=(-genv LD_PRELOAD "$preload")
  run_mpich -np "$np" "${env[@]}" "$@" 2>&1
}

# --- Fortran ---------------------------------------------------------------
# mpif.h needs -fallow-argument-mismatch with gfortran >= 10 (no interfaces).
FFLAGS=(-cpp -O1 -fallow-argument-mismatch)
built=1
for lib in openmpi mpich; do
  for b in 1 2 3; do
    if ! out=$("mpif90.$lib" "${FFLAGS[@]}" -DBINDING=$b "$FORTRAN_SRC" \
               -o "$T_TMP/fortran_${lib}_$b" 2>&1); then
      fail "build the Fortran test ($lib, binding $b)" "$out"; built=0
    fi
  done
  mpicc.$lib -c "$MIXED_C" -o "$T_TMP/mixed_main_$lib.o" &&
    "mpif90.$lib" "${FFLAGS[@]}" "$T_TMP/mixed_main_$lib.o" "$MIXED_F" -o "$T_TMP/mixed_$lib" ||
    { fail "build the mixed C/Fortran program ($lib)"; built=0; }
done
[ $built -eq 1 ] && pass "build the Fortran programs with mpif90 (Open MPI, MPICH)"

# One mock-up forced for every collective.
FORCE_ALL=allgather=allgather_as_allgatherv,allreduce=allreduce_as_reduce_bcast
FORCE_ALL+=,alltoall=alltoall_as_alltoallv,bcast=bcast_as_scatter_allgather
FORCE_ALL+=,gather=gather_as_gatherv,gatherv=gatherv_as_tuw_tree,reduce=reduce_as_allreduce
FORCE_ALL+=,reduce_scatter_block=reducescatterblock_as_allreduce
FORCE_ALL+=,scan=scan_as_exscan_reducelocal,scatter=scatter_as_scatterv
FORCE_ALL+=,scatterv=scatterv_as_tuw_tree,allgatherv=allgatherv_as_allgather_padded
FORCE_ALL+=,alltoallv=alltoallv_as_pairwise_sendrecv,alltoallw=alltoallw_as_alltoallv
FORCE_ALL+=,barrier=barrier_as_dissemination,exscan=exscan_as_scan_shift
FORCE_ALL+=,reduce_scatter=reducescatter_as_allreduce
declare -A ALG_OF=([allgatherv]=allgatherv_as_allgather_padded
  [alltoallv]=alltoallv_as_pairwise_sendrecv [alltoallw]=alltoallw_as_alltoallv
  [barrier]=barrier_as_dissemination [exscan]=exscan_as_scan_shift
  [reduce_scatter]=reducescatter_as_allreduce
  [allgather]=allgather_as_allgatherv [allreduce]=allreduce_as_reduce_bcast
  [alltoall]=alltoall_as_alltoallv [bcast]=bcast_as_scatter_allgather [gather]=gather_as_gatherv
  [gatherv]=gatherv_as_tuw_tree [reduce]=reduce_as_allreduce
  [reduce_scatter_block]=reducescatterblock_as_allreduce [scan]=scan_as_exscan_reducelocal
  [scatter]=scatter_as_scatterv [scatterv]=scatterv_as_tuw_tree)

# fortran_check NAME OUTPUT RC SHIM(0|1): right results; under the shim,
# every collective's calls (as the program counted them) ran the mock-up.
fortran_check() {
  local name=$1 out=$2 rc=$3 shim=$4 missing="" pair coll n
  if [ "$rc" -ne 0 ] || ! grep -q "fortran: 0 wrong results" <<<"$out"; then
    fail "$name" "exit code $rc"$'\n'"$out"; return
  fi
  if [ "$shim" -eq 1 ]; then
    for pair in $(sed -n 's/^fortran calls://p' <<<"$out"); do
      coll=${pair%%=*} n=${pair#*=}
      grep -Eq "ran mock-ups: .*\b${ALG_OF[$coll]}=$n\b" <<<"$out" || missing+=" $coll($n)"
    done
    if [ -z "$(sed -n 's/^fortran calls://p' <<<"$out")" ] || [ -n "$missing" ]; then
      fail "$name" "the shim did not run every call:$missing"$'\n'"$out"; return
    fi
  fi
  pass "$name"
}

BINDING_NAME=([1]="mpif.h" [2]="use mpi" [3]="use mpi_f08")
for np in 3 4; do
  for b in 1 2 3; do
    out=$(run_openmpi -np "$np" "$T_TMP/fortran_openmpi_$b" 2>&1)
    fortran_check "openmpi np=$np Fortran ${BINDING_NAME[$b]}, no shim" "$out" $? 0
    out=$(run_openmpi -np "$np" -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_VERBOSE=1 \
          -x COLLTUNE_FORCE="$FORCE_ALL" "$T_TMP/fortran_openmpi_$b" 2>&1)
    fortran_check "openmpi np=$np Fortran ${BINDING_NAME[$b]}: every collective through the shim" "$out" $? 1
    out=$(run_mpich -np "$np" "$T_TMP/fortran_mpich_$b" 2>&1)
    fortran_check "mpich np=$np Fortran ${BINDING_NAME[$b]}, no shim" "$out" $? 0
    out=$(run_mpich -np "$np" -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_VERBOSE 1 \
          -genv COLLTUNE_FORCE "$FORCE_ALL" "$T_TMP/fortran_mpich_$b" 2>&1)
    fortran_check "mpich np=$np Fortran ${BINDING_NAME[$b]}: every collective through the shim" "$out" $? 1
  done
  # Mixed: 25 calls from C and 25 from Fortran, all 50 through the shim.
  out=$(ompi "$np" "$SHIM_OMPI" "$T_TMP/mixed_openmpi"); expect "openmpi np=$np mixed C/Fortran program: both halves reach the shim" 50 "$out" $?
  out=$(mpich "$np" "$SHIM_MPICH" "$T_TMP/mixed_mpich"); expect "mpich np=$np mixed C/Fortran program: both halves reach the shim" 50 "$out" $?
done

# Bad input from Fortran: the error class that comes back under the shim
# (mock-ups forced for the calls involved) is the library's own.
for lib in openmpi mpich; do
  mpif90.$lib "${FFLAGS[@]}" "$BAD_SRC" -o "$T_TMP/bad_$lib" 2>/dev/null || fail "build the Fortran bad-input program ($lib)"
done
BAD_FORCE=allreduce=allreduce_as_reduce_bcast,bcast=bcast_as_allgatherv
# What a run did: its "case" lines, or when it aborted, "aborted" and the
# library's own failure lines (assertion, abort, signal, fatal error class
# and message) with addresses and node numbers taken out, so two aborts are
# equal only when they failed the same way. A signal counts only when the
# library said nothing else: after MPICH's own assertion the other rank is
# killed mid-teardown, and whether gfortran reports that signal
# ("Program received signal SIGSEGV") depends on timing.
outcome_of() {  # outcome_of EXIT-CODE OUTPUT
  local cases lines
  cases=$(grep '^case' <<<"$2" | sort -u)
  if [ "$1" -eq 0 ] && [ -n "$cases" ]; then echo "$cases"; return; fi
  echo "aborted"
  lines=$(grep -Eo '(Assertion failed in file [^ ]+ at line [0-9]+|Abort\([0-9]+\) on node [0-9]+: .*|Program received signal [A-Z]+|Fatal error in [A-Za-z_]+: [^,]*)' <<<"$2" |
    sed -E 's/node [0-9]+/node N/' | sort -u)
  if grep -qv '^Program received signal' <<<"$lines"; then
    lines=$(grep -v '^Program received signal' <<<"$lines")
  fi
  [ -n "$lines" ] && echo "$lines"
  return 0
}
BAD_CASE=([1]="an invalid communicator handle" [2]="MPI_IN_PLACE in MPI_BCAST" [3]="a negative count")
for c in 1 2 3; do
  native=$(run_openmpi -np 2 "$T_TMP/bad_openmpi" $c 2>&1 | grep '^case' | sort -u)
  shim=$(run_openmpi -np 2 -x LD_PRELOAD="$SHIM_OMPI" -x COLLTUNE_FORCE=$BAD_FORCE "$T_TMP/bad_openmpi" $c 2>&1 | grep '^case' | sort -u)
  [ -n "$native" ] && [ "$native" = "$shim" ] && pass "openmpi Fortran ${BAD_CASE[$c]}: the library's error ($native)" ||
    fail "openmpi Fortran ${BAD_CASE[$c]}: the library's error" "native: $native"$'\n'"shim: $shim"
  out=$(run_mpich -np 2 "$T_TMP/bad_mpich" $c 2>&1); native=$(outcome_of $? "$out")
  out=$(run_mpich -np 2 -genv LD_PRELOAD "$SHIM_MPICH" -genv COLLTUNE_FORCE $BAD_FORCE "$T_TMP/bad_mpich" $c 2>&1)
  shim=$(outcome_of $? "$out")
  # An abort must say how it failed, else two silent aborts would compare equal.
  if [ "$native" = "$shim" ] && [ "$native" != aborted ]; then
    pass "mpich Fortran ${BAD_CASE[$c]}: what the library does ($(tr '\n' ' ' <<<"$native"))"
  else
    fail "mpich Fortran ${BAD_CASE[$c]}: what the library does" "native: $native"$'\n'"shim: $shim"
  fi
done

# --- dlopen, linked, Python ---------------------------------------------------
for np in 3 4; do
  out=$(ompi "$np" "" "$HOST" "$PLUGIN_OMPI"); expect "openmpi np=$np dlopen(RTLD_LOCAL) plugin, no shim" "" "$out" $?
  out=$(ompi "$np" "$SHIM_OMPI" "$HOST" "$PLUGIN_OMPI"); expect "openmpi np=$np dlopen(RTLD_LOCAL) plugin under the preloaded shim" 50 "$out" $?
  out=$(mpich "$np" "" "$HOST" "$PLUGIN_MPICH"); expect "mpich np=$np dlopen(RTLD_LOCAL) plugin, no shim" "" "$out" $?
  out=$(mpich "$np" "$SHIM_MPICH" "$HOST" "$PLUGIN_MPICH"); expect "mpich np=$np dlopen(RTLD_LOCAL) plugin under the preloaded shim" 50 "$out" $?
  out=$(ompi "$np" "" "$LINKED_OMPI"); expect "openmpi np=$np program linked with -lcolltune" 50 "$out" $?
  out=$(mpich "$np" "" "$LINKED_MPICH"); expect "mpich np=$np program linked with -lcolltune-mpich" 50 "$out" $?
  # Debian's mpi4py is built for Open MPI. The job's 50 buffer Allreduce
  # calls are MPI_Allreduce of doubles (its object allreduce is not).
  out=$(ompi "$np" "" /usr/bin/python3 "$PYJOB"); expect "openmpi np=$np mpi4py job, no shim" "" "$out" $?
  out=$(ompi "$np" "$SHIM_OMPI" /usr/bin/python3 "$PYJOB"); expect "openmpi np=$np mpi4py job under the preloaded shim" 50 "$out" $?
  # R's Rmpi (Open MPI): 50 allreduces of doubles and one of integers.
  out=$(ompi "$np" "" Rscript "$RJOB"); expect "openmpi np=$np Rmpi job, no shim" "" "$out" $?
  out=$(ompi "$np" "$SHIM_OMPI" Rscript "$RJOB"); expect "openmpi np=$np Rmpi job under the preloaded shim" 51 "$out" $?
done

# --- MPI-4 sessions -----------------------------------------------------------
for np in 3 4; do
  for preload in "" "$SHIM_MPICH"; do
    what="no shim"; [ -n "$preload" ] && what="under the preloaded shim"
    env=(); [ -n "$preload" ] && env=(-genv LD_PRELOAD "$preload")
    out=$(run_mpich -np "$np" "${env[@]}" "$SESSIONS" 2>&1); rc=$?
    if [ $rc -eq 0 ] && grep -q "sessions: $np processes, 0 wrong results" <<<"$out"; then
      pass "mpich np=$np MPI-4 sessions, $what"
    else
      fail "mpich np=$np MPI-4 sessions, $what" "exit code $rc"$'\n'"$out"
    fi
  done
done

# A program that reaches the shim with no MPI library loaded at all (linked
# with the shim only): MPI_Init fails with the library's error code and one
# line on stderr, never a jump to address 0.
out=$("$NO_MPI" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q "MPI_Init returned an error" <<<"$out" &&
   grep -q "colltune: PMPI_Init is not in any loaded MPI library" <<<"$out"; then
  pass "no MPI library: MPI_Init fails with one clear line"
else
  fail "no MPI library: MPI_Init fails with one clear line" "exit code $rc"$'\n'"$out"
fi
finish
