#!/usr/bin/env bash
# Builds colltune optimized and installs it under a prefix:
#   PREFIX/bin/colltuned, colltune, colltune-bench, colltune-bench-mpich
#   PREFIX/lib/libcolltune.so (Open MPI), libcolltune-mpich.so (MPICH)
#   PREFIX/share/colltune/web/ (the web view: colltuned --http)
# The shim finds its agent (PREFIX/bin/colltune) from its own location.
#
#   scripts/install.sh --prefix /opt/colltune
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX=$2; shift 2 ;;
    *) echo "usage: scripts/install.sh --prefix DIR" >&2; exit 2 ;;
  esac
done
[ -n "$PREFIX" ] || { echo "usage: scripts/install.sh --prefix DIR" >&2; exit 2; }
scripts/install-deps.sh
bazel build -c opt //:release  # BUILD: what a release holds
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
install -d "$PREFIX/bin" "$PREFIX/lib"
install -m 0755 "$BIN/daemon/colltuned" "$BIN/cli/colltune" \
  "$BIN/bench/colltune-bench" "$BIN/bench/colltune-bench-mpich" "$PREFIX/bin/"
install -m 0755 "$BIN/shim/libcolltune.so" "$BIN/shim/libcolltune-mpich.so" "$PREFIX/lib/"
install -d "$PREFIX/share/colltune/web/vendor"
install -m 0644 web/index.html web/app.js web/style.css "$PREFIX/share/colltune/web/"
install -m 0644 web/vendor/chart.umd.js "$PREFIX/share/colltune/web/vendor/"
echo "installed colltune in $PREFIX"
