# Shared by the demo and benchmark scripts: their options and their build.

# Sets the caller's variables from its --FLAG VALUE arguments; anything else
# prints "usage: USAGE" and exits 2.
#   options "USAGE" --FLAG=VARIABLE... -- "$@"
options() {
  local usage=$1 var
  local -A map=()
  shift
  while [ "$1" != -- ]; do map[${1%%=*}]=${1#*=}; shift; done
  shift
  while [ $# -gt 0 ]; do
    var=${map[$1]:-}
    if [ -z "$var" ] || [ $# -lt 2 ]; then echo "usage: $usage" >&2; exit 2; fi
    printf -v "$var" '%s' "$2"
    shift 2
  done
}

# Builds the targets optimised, printing bazel's last line, and sets BIN to
# that build's bazel-bin.
#   build_opt TARGET...
build_opt() {
  bazel build -c opt "$@" 2>&1 | tail -n 1
  BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
}

# Lets Open MPI run as root and place more processes than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
