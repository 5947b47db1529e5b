#!/usr/bin/env bash
# Real applications from Debian's archive, written by nobody here, run
# natively and under the shim (Open MPI, which Debian builds them with):
#  * Quantum ESPRESSO's pw.x (Fortran 90: its collectives are Fortran calls,
#    which Open MPI's bindings route past the C entry points), a silicon SCF
#    run on a pseudopotential its own ld1.x generates;
#  * LAMMPS (C++), charged particles with PPPM long-range electrostatics.
# At 3 and 4 processes: the results printed natively and under the shim agree
# (numbers, not text: a different legal summation order may move the last
# digits), also with mock-ups forced; and every collective call the program
# made (counted by count_calls.c, preloaded alone in the native run) appears
# in the job report the shim wrote (every call timed, none explored).
#
# Args: libcolltune.so count_calls.c compare.py si_ld1.in si_scf.in in.nacl
source tests/lib/testlib.sh
args_as SHIM COUNTER_SRC COMPARE QE_LD1 QE_SCF LMP_IN -- "$@"
export OMP_NUM_THREADS=1
MPI_TIMEOUT=180

for tool in pw.x ld1.x lmp; do
  command -v "$tool" >/dev/null || { fail "$tool is installed (scripts/install-deps.sh)"; finish; exit 1; }
done
W=$T_TMP/work
mkdir -p "$W" && cd "$W" || exit 1
mpicc.openmpi -O2 -fPIC -shared "$COUNTER_SRC" -o libcount.so -ldl &&
  pass "build the independent call counter" || fail "build the independent call counter"
cp "$QE_SCF" si_scf.in
cp "$LMP_IN" in.nacl
if ld1.x <"$QE_LD1" >ld1.out 2>&1 && [ -s Si.tm.UPF ]; then
  pass "ld1.x generates the silicon pseudopotential"
else
  fail "ld1.x generates the silicon pseudopotential" "$(tail -20 ld1.out)"
fi

FORCE=allreduce=allreduce_as_reduce_bcast,alltoall=alltoall_as_alltoallv
FORCE+=,bcast=bcast_as_scatter_allgather,gatherv=gatherv_as_tuw_tree
FORCE+=,allgather=allgather_as_allgatherv,reduce=reduce_as_allreduce
FORCE+=,alltoallv=alltoallv_as_pairwise_sendrecv,barrier=barrier_as_dissemination

# run_app NAME NP OUT [mpirun environment...] -- PROGRAM ARGS...
run_app() {
  local name=$1 np=$2 out=$3
  shift 3
  local env=()
  while [ "$1" != "--" ]; do env+=(-x "$1"); shift; done
  shift
  run_openmpi -np "$np" -x OMP_NUM_THREADS "${env[@]}" "$@" >"$out" 2>"$out.err"
  local rc=$?
  [ $rc -eq 0 ] || fail "$name" "exit code $rc"$'\n'"$(tail -20 "$out" "$out.err")"
  return $rc
}

# app LABEL COMPARE_KIND PROGRAM ARGS...
app() {
  local label=$1 kind=$2
  shift 2
  local np out
  for np in 3 4; do
    rm -rf counts spool && mkdir counts
    run_app "$label np=$np natively" "$np" native.out \
      LD_PRELOAD="$W/libcount.so" COUNT_DIR="$W/counts" -- "$@" || continue
    run_app "$label np=$np under the shim" "$np" shim.out \
      LD_PRELOAD="$SHIM" COLLTUNE_SAMPLE=1 COLLTUNE_EXPLORE=0 COLLTUNE_SPOOL_DIR="$W/spool" \
      -- "$@" || continue
    out=$(python3 "$COMPARE" "$kind" native.out shim.out 2>&1) &&
      pass "$label np=$np: results under the shim equal the native ones ($(tail -1 <<<"$out"))" ||
      fail "$label np=$np: results under the shim equal the native ones" "$out"
    out=$(python3 "$COMPARE" calls counts spool/*.report 2>&1) &&
      pass "$label np=$np: the shim saw every collective call the program made"$'\n'"$out" ||
      fail "$label np=$np: the shim saw every collective call the program made" "$out"
    run_app "$label np=$np with mock-ups forced" "$np" forced.out \
      LD_PRELOAD="$SHIM" COLLTUNE_FORCE="$FORCE" COLLTUNE_VERBOSE=1 -- "$@" || continue
    out=$(python3 "$COMPARE" "$kind" native.out forced.out 2>&1)
    # Both applications call MPI_Alltoallv (FFTs, the PPPM grid): its
    # mock-up must have run too.
    if [ $? -eq 0 ] && grep -q "ran mock-ups: .*=[1-9]" forced.out.err &&
       grep -Eq "ran mock-ups: .*alltoallv_as_pairwise_sendrecv=[1-9]" forced.out.err; then
      pass "$label np=$np: results with mock-ups forced equal the native ones"
    else
      fail "$label np=$np: results with mock-ups forced equal the native ones" \
        "$out"$'\n'"$(grep colltune forced.out.err)"
    fi
  done
}

app "Quantum ESPRESSO pw.x (Fortran)" qe pw.x -nd 1 -in si_scf.in
app "LAMMPS lmp (C++)" lammps lmp -in in.nacl -log none -echo none

# Reproducible mode: with exploration turned up to every call, LAMMPS under
# COLLTUNE_REPRODUCIBLE=1 explores nothing (its report says so) and prints
# the same thermo table, bit for bit, run after run and as natively; without
# it the same settings do explore (so the setting is what stops it).
thermo() { awk '/^Step/{f=1} /^Loop time/{f=0} f' "$1"; }
explored() { awk '$1 == "timing" { e += $9 } END { print e + 0 }' "$1"/*.report; }
EXPLORE_ALL=(COLLTUNE_SAMPLE=1 COLLTUNE_EXPLORE=1 COLLTUNE_EXPLORE_MIN_CALLS=0)
LMP=(lmp -in in.nacl -log none -echo none)
ok=1
for i in 1 2; do
  rm -rf spool
  run_app "LAMMPS reproducible run $i" 4 repro_$i.out LD_PRELOAD="$SHIM" "${EXPLORE_ALL[@]}" \
    COLLTUNE_REPRODUCIBLE=1 COLLTUNE_SPOOL_DIR="$W/spool" COLLTUNE_VERBOSE=1 -- "${LMP[@]}" || ok=0
  [ "$(explored spool)" -eq 0 ] || { ok=0; echo "run $i explored $(explored spool) calls"; }
done
run_app "LAMMPS native run" 4 repro_native.out -- "${LMP[@]}" || ok=0
if [ $ok -eq 1 ] && [ -n "$(thermo repro_1.out)" ] && cmp -s <(thermo repro_1.out) <(thermo repro_2.out) &&
   cmp -s <(thermo repro_1.out) <(thermo repro_native.out) &&
   grep -q "reproducible: no exploration" repro_1.out.err; then
  pass "COLLTUNE_REPRODUCIBLE=1: no call explored, thermo output bitwise identical run to run"
else
  fail "COLLTUNE_REPRODUCIBLE=1: no call explored, thermo output bitwise identical run to run" \
    "$(diff <(thermo repro_1.out) <(thermo repro_2.out) | head; grep colltune repro_1.out.err)"
fi
rm -rf spool
if run_app "LAMMPS exploring run" 4 explore.out LD_PRELOAD="$SHIM" "${EXPLORE_ALL[@]}" \
     COLLTUNE_SPOOL_DIR="$W/spool" -- "${LMP[@]}" && [ "$(explored spool)" -gt 0 ]; then
  pass "without it the same settings explore ($(explored spool) calls)"
else
  fail "without it the same settings explore" "explored: $(explored spool 2>&1)"
fi
finish
