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
source scripts/lib/options.sh
options "scripts/$LOOP_NAME.sh [--rounds N]" --rounds=ROUNDS -- "$@"
scripts/install-deps.sh
command -v valgrind >/dev/null || apt-get install -y -q valgrind >/dev/null
build_opt //bench:colltune-loop //shim:libcolltune.so
WORK=$(mktemp -d "/tmp/colltune-$LOOP_NAME.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
SHIM="$BIN/shim/libcolltune.so"
