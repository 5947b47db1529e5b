#!/usr/bin/env bash
# What COLLTUNE_HEAP=fixed (common/heap.h, docs/operators-guide.md "The
# job's heap") does to an ordinary program's collectives. The program
# (examples/collective_mix, whose collectives are the default list) allocates its buffers, times a first loop of
# --calls calls, frees the buffers and times a second loop: its first loop
# runs in the heap state the process started in, the second in the state
# glibc reaches once a large block was freed. Each collective runs natively
# (no shim), under the shim with an empty table (every call the library's
# default) and COLLTUNE_HEAP=fixed, and the same with the heap kept (the
# default), --launches alternating launches each; the medians and the ratios
# native/shim are printed, first loop and second loop.
#
#   scripts/heap_benchmark.sh [--library openmpi|mpich] [--np N] [--launches 3]
#                             [--bytes 524288] [--calls 300] [--collectives LIST]
set -euo pipefail
cd "$(dirname "$0")/.."
LIBRARY=openmpi NP="" LAUNCHES=3 BYTES=524288 CALLS=300
COLLECTIVES=allreduce,reduce,bcast,allgather,gather,scatter
while [ $# -gt 0 ]; do
  case "$1" in
    --library) LIBRARY=$2; shift 2 ;;
    --np) NP=$2; shift 2 ;;
    --launches) LAUNCHES=$2; shift 2 ;;
    --bytes) BYTES=$2; shift 2 ;;
    --calls) CALLS=$2; shift 2 ;;
    --collectives) COLLECTIVES=$2; shift 2 ;;
    *) echo "usage: scripts/heap_benchmark.sh [--library openmpi|mpich] [--np N] [--launches N] [--bytes N] [--calls N] [--collectives LIST]" >&2; exit 2 ;;
  esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
bazel build -c opt //examples:collective_mix //examples:collective_mix_mpich //shim:libcolltune.so \
  //shim:libcolltune-mpich.so 2>&1 | tail -n 1
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
case "$LIBRARY" in
  openmpi) NP=${NP:-4}; APP=$BIN/examples/collective_mix; SHIM=$BIN/shim/libcolltune.so
           MPIRUN=(mpirun.openmpi --bind-to core:overload-allowed --map-by core -np "$NP")
           env_of() { printf -- '-x\n%s\n' "$@"; } ;;
  mpich) NP=${NP:-2}; APP=$BIN/examples/collective_mix_mpich; SHIM=$BIN/shim/libcolltune-mpich.so
         MPIRUN=(mpirun.mpich -bind-to core -np "$NP")
         env_of() { local e; for e in "$@"; do printf -- '-genv\n%s\n%s\n' "${e%%=*}" "${e#*=}"; done; } ;;
  *) echo "heap_benchmark.sh: --library must be openmpi or mpich" >&2; exit 2 ;;
esac
EMPTY=$(mktemp)
trap 'rm -f "$EMPTY"' EXIT
printf 'colltune-table 1\n' > "$EMPTY"

run() {  # run COLLECTIVE ENV=VALUE...: "first/second" us a call
  local coll=$1 envs=()
  shift
  [ $# -gt 0 ] && mapfile -t envs < <(env_of "$@")
  local out
  out=$("${MPIRUN[@]}" ${envs[@]+"${envs[@]}"} "$APP" --collectives "$coll" --bytes "$BYTES" \
        --warmup "$CALLS" --iters "$CALLS" </dev/null 2>&1)
  grep -q verified <<<"$out" || { echo "results not verified: $out" >&2; exit 1; }
  awk -v c="$coll" '$1 == c { f = $0; sub(/.*: /, "", f); sub(/ us.*/, "", f); print f "/" $4 }' <<<"$out"
}
median() { python3 -c 'import statistics,sys; print("%.1f" % statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
ratio() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }

echo "$LIBRARY, $NP processes, $BYTES bytes, loops of $CALLS calls, $LAUNCHES launches each (us a call, medians)"
printf '%-22s %10s %10s %10s %8s %8s | %10s %10s %8s\n' collective "native" "fixed" "kept" \
  "nat/fixd" "nat/kept" "2nd native" "2nd fixed" "nat/fixd"
IFS=, read -r -a colls <<<"$COLLECTIVES"
for coll in "${colls[@]}"; do
  native=() shim=() keep=()
  for k in $(seq "$LAUNCHES"); do
    native+=("$(run "$coll")")
    shim+=("$(run "$coll" LD_PRELOAD="$SHIM" COLLTUNE_TABLE="$EMPTY" COLLTUNE_HEAP=fixed)")
    keep+=("$(run "$coll" LD_PRELOAD="$SHIM" COLLTUNE_TABLE="$EMPTY")")
  done
  n1=$(median "${native[@]%/*}") s1=$(median "${shim[@]%/*}") k1=$(median "${keep[@]%/*}")
  n2=$(median "${native[@]#*/}") s2=$(median "${shim[@]#*/}")
  printf '%-22s %10s %10s %10s %7sx %7sx | %10s %10s %7sx\n' "$coll" "$n1" "$s1" "$k1" \
    "$(ratio "$n1" "$s1")" "$(ratio "$n1" "$k1")" "$n2" "$s2" "$(ratio "$n2" "$s2")"
done
