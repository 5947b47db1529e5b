#!/usr/bin/env bash
# Builds colltune's .deb from built binaries (called by the genrule in
# packaging/debian/BUILD; see there). Stages the tree, strips the binaries as
# dh_strip would, computes Depends/Recommends with dpkg-shlibdeps, writes
# DEBIAN/ (control, conffiles, md5sums, maintainer scripts) and runs dpkg-deb
# with root ownership and the changelog's date on every file.
set -euo pipefail

usage() { echo "build_deb.sh: $*" >&2; exit 2; }
declare -A a=()
while [ $# -gt 0 ]; do
  case "$1" in
    --*) [ $# -ge 2 ] || usage "$1 needs a value"; a[${1#--}]=$2; shift 2 ;;
    *) usage "unexpected argument $1" ;;
  esac
done
for k in out version arch debian-dir colltuned colltune bench bench-mpich shim \
         shim-mpich unit module-lua module-tcl web; do
  [ -n "${a[$k]:-}" ] || usage "--$k is missing"
done
D=${a[debian-dir]}

host_arch=$(dpkg --print-architecture)
[ "$host_arch" = "${a[arch]}" ] ||
  usage "this machine is $host_arch, the package is declared ${a[arch]} (packaging/debian/BUILD)"
changelog_version=$(dpkg-parsechangelog -l "$D/changelog" -S Version)
[ "$changelog_version" = "${a[version]}" ] ||
  usage "packaging/debian/changelog's newest version is $changelog_version, BUILD says ${a[version]}"
# From all the sources: the chart library (web/vendor, from npm) and the
# Grafana dashboard (packaging/grafana), either of which may be absent.
chart=""
grafana=()
for f in ${a[srcs]:-}; do
  case "$f" in
    */web/vendor/chart.umd.js|web/vendor/chart.umd.js) chart=$f ;;
    */packaging/grafana/*.json|packaging/grafana/*.json) grafana+=("$f") ;;
  esac
done
[ -n "$chart" ] ||
  usage "web/vendor/chart.umd.js is missing: run scripts/install-deps.sh (npm ci in web/)"

W=$(mktemp -d "${TMPDIR:-/tmp}/colltune-deb.XXXXXX")
trap 'rm -rf "$W"' EXIT
R=$W/root

install -d "$R/usr/bin" "$R/usr/lib/colltune" "$R/usr/share/colltune/web/vendor" \
  "$R/usr/share/colltune/modules" "$R/usr/share/doc/colltune" \
  "$R/lib/systemd/system" "$R/etc/default" \
  "$R/etc/colltune" "$R/DEBIAN"

# Binaries: executables lose .comment/.note and debug symbols; the shims are
# stripped to their dynamic symbols (their exports are all MPI entry points).
install -m 0755 "${a[colltuned]}" "$R/usr/bin/colltuned"
install -m 0755 "${a[colltune]}" "$R/usr/bin/colltune"
install -m 0755 "${a[bench]}" "$R/usr/bin/colltune-bench"
install -m 0755 "${a[bench-mpich]}" "$R/usr/bin/colltune-bench-mpich"
for f in "$R"/usr/bin/*; do
  strip --remove-section=.comment --remove-section=.note "$f"
done
# colltune-bench is linked with a RUNPATH to Open MPI's private directory
# (third_party/mpi/openmpi.BUILD); installed, libmpi.so.40 is found in the
# system's library directory, where libopenmpi3 puts it (Debian policy 10.2:
# no RUNPATH to system directories).
chrpath -d "$R/usr/bin/colltune-bench" >/dev/null
install -m 0644 "${a[shim]}" "$R/usr/lib/colltune/libcolltune.so"
install -m 0644 "${a[shim-mpich]}" "$R/usr/lib/colltune/libcolltune-mpich.so"
for f in "$R"/usr/lib/colltune/*.so; do
  strip --remove-section=.comment --remove-section=.note --strip-unneeded "$f"
done

# The web view: what colltuned --http serves (daemon/web.cc DefaultWebDir:
# /usr/bin/colltuned -> /usr/share/colltune/web).
for f in ${a[web]}; do
  case "$(basename "$f")" in
    index.html|view.js|charts.js|sections.js|app.js|style.css) install -m 0644 "$f" "$R/usr/share/colltune/web/" ;;
  esac
done
for f in index.html view.js charts.js sections.js app.js style.css; do
  [ -f "$R/usr/share/colltune/web/$f" ] || usage "the web view's $f is missing"
done
install -m 0644 "$chart" "$R/usr/share/colltune/web/vendor/chart.umd.js"

install -m 0644 "${a[unit]}" "$R/lib/systemd/system/colltuned.service"
install -m 0644 "${a[module-lua]}" "$R/usr/share/colltune/modules/colltune.lua"
install -m 0644 "${a[module-tcl]}" "$R/usr/share/colltune/modules/colltune"
for f in "${grafana[@]}"; do
  install -d "$R/usr/share/colltune/grafana"
  install -m 0644 "$f" "$R/usr/share/colltune/grafana/"
done
install -m 0644 "$D/colltuned.default" "$R/etc/default/colltuned"
install -m 0644 "$D/server" "$R/etc/colltune/server"

install -m 0644 "$D/copyright" "$D/README.Debian" "$R/usr/share/doc/colltune/"
gzip -9n -c "$D/changelog" > "$R/usr/share/doc/colltune/changelog.Debian.gz"
chmod 0644 "$R/usr/share/doc/colltune/changelog.Debian.gz"

# Depends from what the daemon, the CLI and the shims link; the benchmarks
# link an MPI library each (libopenmpi3, libmpich12): Recommends, so that a
# daemon host needs no MPI at all.
mkdir -p "$W/debian"
printf 'Source: colltune\n\nPackage: colltune\nArchitecture: any\n' > "$W/debian/control"
substvars=$(cd "$W" && dpkg-shlibdeps -O --warnings=1 \
  -dDepends root/usr/bin/colltuned root/usr/bin/colltune \
  root/usr/lib/colltune/libcolltune.so root/usr/lib/colltune/libcolltune-mpich.so \
  -dRecommends root/usr/bin/colltune-bench root/usr/bin/colltune-bench-mpich)
depends=$(sed -n 's/^shlibs:Depends=//p' <<<"$substvars")
recommends=$(sed -n 's/^shlibs:Recommends=//p' <<<"$substvars")
[ -n "$depends" ] || usage "dpkg-shlibdeps found no dependencies: $substvars"
# mpirun for campaigns (colltune campaign, colltune-bench).
recommends="${recommends:+$recommends, }openmpi-bin | mpich"

size=$(du -sk --apparent-size --exclude=DEBIAN "$R" | cut -f1)
sed -e "s/@VERSION@/${a[version]}/" -e "s/@ARCH@/${a[arch]}/" \
    -e "s/@INSTALLED_SIZE@/$size/" -e "s/@DEPENDS@/$depends/" \
    -e "s/@RECOMMENDS@/$recommends/" "$D/control.in" > "$R/DEBIAN/control"
install -m 0644 "$D/conffiles" "$R/DEBIAN/conffiles"
install -m 0755 "$D/postinst" "$D/prerm" "$D/postrm" "$R/DEBIAN/"
(cd "$R" && find . -type f ! -path './DEBIAN/*' -printf '%P\n' | LC_ALL=C sort |
  xargs md5sum) > "$R/DEBIAN/md5sums"
chmod 0644 "$R/DEBIAN/md5sums"

# Reproducible: the changelog's date on every file and in the archive.
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l "$D/changelog" -S Timestamp)
export SOURCE_DATE_EPOCH
find "$R" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
find "$R" -type d -exec chmod 0755 {} +
dpkg-deb --root-owner-group -Zxz --build "$R" "$W/out.deb" >/dev/null
cp "$W/out.deb" "${a[out]}"
