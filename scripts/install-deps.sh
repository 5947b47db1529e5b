#!/usr/bin/env bash
# Installs what colltune needs from Debian 12's archive, if anything is
# missing. Safe to run again: it does nothing when all is there.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap            # the build (Bazel 4.2.3, offline)
  g++ binutils pkg-config python3
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libsqlite3-dev sqlite3
  libgtest-dev
  libopenmpi-dev openmpi-bin # Open MPI 4.1 (mpirun.openmpi)
  mpich libmpich-dev         # MPICH 4.0 (mpirun.mpich)
  libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev libcpp-httplib-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
