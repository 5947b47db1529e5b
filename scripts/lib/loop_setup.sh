# Shared by the scripts that measure the shim's cost with colltune-loop
# (online_overhead.sh, fortran_overhead.sh): sourced from the repository's
# root with the script's arguments. Parses --rounds N into ROUNDS (default
# 5), installs what is missing (valgrind too), builds colltune-loop and the
# shim optimized, and sets BIN (bazel-bin of that build), SHIM, and WORK (a
# temporary directory removed on exit, named after $1's script).
#   source scripts/lib/loop_setup.sh NAME "$@"
LOOP_NAME=$1
shift
ROUNDS=5
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    *) echo "usage: scripts/$LOOP_NAME.sh [--rounds N]" >&2; exit 2 ;;
  esac
done
scripts/install-deps.sh
command -v valgrind >/dev/null || apt-get install -y -q valgrind >/dev/null
bazel build -c opt //bench:colltune-loop //shim:libcolltune.so 2>&1 | tail -n 1
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
WORK=$(mktemp -d "/tmp/colltune-$LOOP_NAME.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
SHIM="$BIN/shim/libcolltune.so"
