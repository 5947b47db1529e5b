#!/usr/bin/env bash
# Installs what colltune needs from Debian 12's archive, if anything is
# missing. Safe to run again: it does nothing when all is there.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap            # the build (Bazel 4.2.3, offline)
  g++ binutils pkg-config python3
  python3-mpi4py             # Python MPI jobs (tests/mpi/bindings_test.sh)
  gfortran                   # Fortran MPI jobs
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libsqlite3-dev sqlite3
  libgtest-dev
  libopenmpi-dev openmpi-bin # Open MPI 4.1 (mpirun.openmpi)
  mpich libmpich-dev         # MPICH 4.0 (mpirun.mpich)
  libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev libcpp-httplib-dev
  prometheus-cpp-dev         # colltuned's /metrics (prometheus-cpp's core library)
  prometheus                 # promtool: tests/web/metrics_test.sh checks the exposition
  curl                       # the web API tests
  chromium                   # the web view's browser tests (playwright-core)
  dpkg-dev chrpath lintian   # the Debian package (//:deb) and its checks
  systemd lmod tcl           # package_test: systemd-analyze verify, module files
  slurm-wlm munge libmunge-dev # a one-node Slurm + private munged in tests (tests/lib/slurm.sh);
                             # colltuned --auth munge, the clients' credentials
  libssl-dev openssl         # SHA-256 binding a credential to its request; certificates in auth_test
  iproute2 util-linux        # the emulated cluster (scripts/cluster.sh): ip, tc, nsenter, unshare
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Node.js and npm: the machine's own if it has them (a nodesource build
# carries its npm), else Debian's.
if ! command -v npm >/dev/null 2>&1; then missing+=(nodejs npm); fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Real MPI applications and language bindings the tests run under the shim
# (tests/apps; R's Rmpi in tests/mpi/bindings_test.sh): installed
# without their recommendations (documentation, example data: 400 MB more).
APPS=(quantum-espresso lammps r-cran-rmpi)
missing_apps=()
for p in "${APPS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing_apps+=("$p")
  fi
done
if [ "${#missing_apps[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing_apps[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  [ "${#missing[@]}" -gt 0 ] || $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing_apps[@]}" >/dev/null
fi

# The web view's npm packages (web/package-lock.json): the chart library the
# page serves, copied into web/vendor/, and playwright-core for its tests.
# Installed again only when the lock file changed.
WEB="$(dirname "$0")/../web"
if [ ! -e "$WEB/vendor/chart.umd.js" ] || [ ! -d "$WEB/node_modules/playwright-core" ] ||
   [ "$WEB/package-lock.json" -nt "$WEB/node_modules/.package-lock.json" ]; then
  echo "install-deps: npm ci in web/" >&2
  (cd "$WEB" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
