#!/usr/bin/env bash
# Builds colltune optimized and installs it under a prefix:
#   PREFIX/bin/colltuned, colltune, colltune-bench, colltune-bench-mpich
#   PREFIX/lib/libcolltune.so (Open MPI), libcolltune-mpich.so (MPICH)
#   PREFIX/share/colltune/web/ (the web view: colltuned --http)
#   PREFIX/share/colltune/modules/colltune.lua (Lmod), colltune (Tcl): module
#     files preloading the shim of the loaded MPI (packaging/modules)
#   PREFIX/lib/systemd/system/colltuned.service: the unit, running
#     PREFIX/bin/colltuned (packaging/systemd; copy or link it into
#     /etc/systemd/system to use it)
#   PREFIX/share/colltune/grafana/: the Grafana dashboard (packaging/grafana)
# The shim finds its agent (PREFIX/bin/colltune) from its own location.
# The Debian package holds the same: bazel build -c opt //:deb.
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
# Absolute: the module files and the unit name it.
mkdir -p "$PREFIX" && PREFIX=$(cd "$PREFIX" && pwd)
scripts/install-deps.sh
bazel build -c opt //:release  # BUILD: what a release holds
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
install -d "$PREFIX/bin" "$PREFIX/lib"
install -m 0755 "$BIN/daemon/colltuned" "$BIN/cli/colltune" \
  "$BIN/bench/colltune-bench" "$BIN/bench/colltune-bench-mpich" "$PREFIX/bin/"
install -m 0755 "$BIN/shim/libcolltune.so" "$BIN/shim/libcolltune-mpich.so" "$PREFIX/lib/"
install -d "$PREFIX/share/colltune/web/vendor"
install -m 0644 web/index.html web/view.js web/charts.js web/sections.js web/app.js web/style.css "$PREFIX/share/colltune/web/"
install -m 0644 web/vendor/chart.umd.js "$PREFIX/share/colltune/web/vendor/"
# Site files with the prefix written in.
install -d "$PREFIX/share/colltune/modules" "$PREFIX/lib/systemd/system"
sed "s|^local prefix = \"/usr\"|local prefix = \"$PREFIX\"|" packaging/modules/colltune.lua \
  > "$PREFIX/share/colltune/modules/colltune.lua"
sed "s|^set prefix /usr\$|set prefix {$PREFIX}|" packaging/modules/colltune \
  > "$PREFIX/share/colltune/modules/colltune"
sed "s|^ExecStart=/usr/bin/colltuned |ExecStart=$PREFIX/bin/colltuned |" \
  packaging/systemd/colltuned.service > "$PREFIX/lib/systemd/system/colltuned.service"
chmod 0644 "$PREFIX/share/colltune/modules/colltune.lua" "$PREFIX/share/colltune/modules/colltune" \
  "$PREFIX/lib/systemd/system/colltuned.service"
grep -q "^local prefix = \"$PREFIX\"" "$PREFIX/share/colltune/modules/colltune.lua" &&
  grep -q "^set prefix {$PREFIX}" "$PREFIX/share/colltune/modules/colltune" &&
  grep -q "^ExecStart=$PREFIX/bin/colltuned " "$PREFIX/lib/systemd/system/colltuned.service" ||
  { echo "install.sh: could not write the prefix into the site files" >&2; exit 1; }
for f in packaging/grafana/*.json; do
  [ -f "$f" ] || continue
  install -d "$PREFIX/share/colltune/grafana"
  install -m 0644 "$f" "$PREFIX/share/colltune/grafana/"
done
echo "installed colltune in $PREFIX"
