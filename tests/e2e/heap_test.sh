#!/usr/bin/env bash
# COLLTUNE_HEAP=fixed puts a job's heap in the state campaigns measure in
# before the library starts (common/heap.h): a program that allocates its
# buffers once would otherwise stay in glibc's initial state, where some of
# the libraries' collectives run many times slower than what the table was
# decided on. Without it (COLLTUNE_HEAP=keep, the default) the shim leaves
# the heap alone, and so do a threshold the job's environment sets and
# COLLTUNE_DISABLE.
#
# Args: libcolltune.so libcolltune-mpich.so heap_state heap_state_mpich
source tests/lib/testlib.sh
args_as SHIM SHIM_MPICH PROG PROG_MPICH -- "$@"

states() {  # states LIBRARY [ENV=VALUE...]: each rank's line, then the shim's log
  local library=$1 envs=()
  shift
  if [ "$library" = openmpi ]; then
    for e in "$@"; do envs+=(-x "$e"); done
    run_openmpi -np 2 "${envs[@]}" "$PROG" 2>&1
  else
    for e in "$@"; do envs+=(-genv "${e%%=*}" "${e#*=}"); done
    run_mpich -np 2 "${envs[@]}" "$PROG_MPICH" 2>&1
  fi
}
expect() {  # expect NAME OUTPUT STATE [LOG-PATTERN]: both ranks in STATE
  local name=$1 out=$2 state=$3 pattern=${4:-}
  if [ "$(grep -c "^rank [01]: $state\$" <<<"$out")" -ne 2 ]; then
    fail "$name" "expected '$state' on both ranks:"$'\n'"$out"; return
  fi
  if [ -n "$pattern" ] && ! grep -Eq -- "$pattern" <<<"$out"; then
    fail "$name" "missing: $pattern"$'\n'"$out"; return
  fi
  pass "$name"
}

for library in openmpi mpich; do
  shim=$SHIM
  [ "$library" = mpich ] && shim=$SHIM_MPICH
  # Without the shim the program sees glibc's own state: the control that
  # shows the block would be mapped if nobody fixed the heap.
  expect "$library: without the shim a 24 MiB block is mapped" "$(states $library)" mmap
  expect "$library: under the shim, by default, the heap is the job's" \
    "$(states $library LD_PRELOAD="$shim" COLLTUNE_VERBOSE=1)" mmap \
    "colltune: heap as the job has it"
  expect "$library: COLLTUNE_HEAP=fixed: from the heap, and it stays there" \
    "$(states $library LD_PRELOAD="$shim" COLLTUNE_HEAP=fixed COLLTUNE_VERBOSE=1)" "heap, kept" \
    "colltune: heap fixed: blocks up to 32 MiB from it, trimmed beyond 64 MiB"
  expect "$library: COLLTUNE_HEAP=keep leaves the heap alone" \
    "$(states $library LD_PRELOAD="$shim" COLLTUNE_HEAP=keep)" mmap
  expect "$library: a threshold the environment sets is kept" \
    "$(states $library LD_PRELOAD="$shim" COLLTUNE_HEAP=fixed MALLOC_MMAP_THRESHOLD_=1048576 COLLTUNE_VERBOSE=1)" mmap \
    "colltune: heap as MALLOC_MMAP_THRESHOLD_ sets it"
  expect "$library: COLLTUNE_DISABLE=1 changes nothing" \
    "$(states $library LD_PRELOAD="$shim" COLLTUNE_HEAP=fixed COLLTUNE_DISABLE=1)" mmap
  expect "$library: a bad COLLTUNE_HEAP is named, and the heap left alone" \
    "$(states $library LD_PRELOAD="$shim" COLLTUNE_HEAP=sometimes)" mmap \
    "COLLTUNE_HEAP='sometimes' is not fixed or keep; the heap was left as the job has it"
done
finish
