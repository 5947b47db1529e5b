# Shell test helpers. A script sources this, runs checks, and ends with
# `finish`. Every check becomes one <testcase> in the JUnit XML file Bazel
# asks for ($XML_OUTPUT_FILE), so the test runner counts checks, not scripts.
#
#   check NAME CMD...        passes if CMD exits 0
#   check_fails NAME CMD...  passes if CMD exits non-zero
#   expect_fail NAME PATTERN CMD...  passes if CMD (stdin from /dev/null)
#                            exits non-zero saying PATTERN (grep -E)
#   expect_output NAME RC OUTPUT PATTERN...  passes if RC is 0 and OUTPUT
#                            has every PATTERN (grep -E)
#   expect_exit NAME CODE PATTERN CMD...  passes if CMD exits CODE saying
#                            PATTERN (grep -E)
#   pass NAME / fail NAME MESSAGE
#   finish                   writes the XML, prints "N passed, N failed"

T_SUITE=${T_SUITE:-$(basename "$0" .sh)}
T_PASSED=0
T_FAILED=0
T_XML=""

_t_escape() {
  sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' \
    | tr -d '\000-\010\013\014\016-\037' | head -c 4000
}

pass() {
  T_PASSED=$((T_PASSED + 1))
  T_XML+="<testcase classname=\"$T_SUITE\" name=\"$(printf '%s' "$1" | _t_escape)\"/>"
  echo "PASS: $1"
}

fail() {
  T_FAILED=$((T_FAILED + 1))
  local msg
  msg=$(printf '%s' "${2:-}" | _t_escape)
  T_XML+="<testcase classname=\"$T_SUITE\" name=\"$(printf '%s' "$1" | _t_escape)\"><failure message=\"failed\">$msg</failure></testcase>"
  echo "FAIL: $1"
  if [ -n "${2:-}" ]; then printf '%s\n' "$2" | tail -n 40 | sed 's/^/    /'; fi
}

check() {
  local name=$1
  shift
  local out
  if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$out"; fi
}

check_fails() {
  local name=$1
  shift
  local out
  if out=$("$@" 2>&1); then fail "$name" "expected failure, got success: $out"; else pass "$name"; fi
}

expect_fail() {  # NAME PATTERN CMD...
  local name=$1 pattern=$2 out rc
  shift 2
  out=$("$@" </dev/null 2>&1); rc=$?
  if [ $rc -ne 0 ] && grep -Eq -- "$pattern" <<<"$out"; then pass "$name"
  else fail "$name" "rc=$rc"$'\n'"$out"; fi
}

expect_exit() {  # NAME CODE PATTERN CMD...: exit code and a line of output
  local name=$1 code=$2 pattern=$3 out rc
  shift 3
  out=$("$@" 2>&1); rc=$?
  if [ $rc -eq "$code" ] && grep -Eq -- "$pattern" <<<"$out"; then pass "$name"
  else fail "$name" "rc=$rc (expected $code), wanted: $pattern"$'\n'"$out"; fi
}

expect_output() {  # NAME RC OUTPUT PATTERN...: RC 0 and every PATTERN (grep -E) in OUTPUT
  local name=$1 rc=$2 out=$3 pattern
  shift 3
  if [ "$rc" -ne 0 ]; then
    fail "$name" "rc=$rc"$'\n'"$out"
    return
  fi
  for pattern in "$@"; do
    if ! grep -Eq -- "$pattern" <<<"$out"; then
      fail "$name" "wanted: $pattern"$'\n'"$out"
      return
    fi
  done
  pass "$name"
}

finish() {
  if [ -n "${XML_OUTPUT_FILE:-}" ]; then
    {
      echo '<?xml version="1.0" encoding="UTF-8"?>'
      echo "<testsuites><testsuite name=\"$T_SUITE\" tests=\"$((T_PASSED + T_FAILED))\" failures=\"$T_FAILED\">"
      printf '%s\n' "$T_XML"
      echo "</testsuite></testsuites>"
    } > "$XML_OUTPUT_FILE"
  fi
  echo "$T_PASSED passed, $T_FAILED failed"
  [ "$T_FAILED" -eq 0 ]
}

# A private directory with a short path (unix sockets need < 108 bytes),
# removed when the script exits; servers started with `start_daemon` are
# stopped then too.
T_TMP=$(mktemp -d /tmp/colltune-test.XXXXXX)
T_PIDS=()
_t_cleanup() {
  local pid
  for pid in "${T_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${T_PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$T_TMP"
}
trap _t_cleanup EXIT

# Absolute path of a runfile given as a Bazel $(rootpath) argument.
abspath() { readlink -f "$1"; }

# args_as NAME... -- "$@": sets each NAME to the absolute path of the
# script's argument in the same place (Bazel's $(rootpath) arguments).
args_as() {
  local names=() n
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do names+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  for n in "${names[@]}"; do
    if [ $# -eq 0 ]; then
      echo "args_as: no argument for $n" >&2
      exit 2
    fi
    printf -v "$n" '%s' "$(readlink -f "$1")"
    shift
  done
}

# start_daemon COLLTUNED DB SOCKET [ARGS...]: starts colltuned and waits until
# its socket answers (CLI given as $COLLTUNE_CLI). Sets DAEMON_PID. Call it
# directly, not through `check` or $(...): a subshell would lose the pid.
start_daemon() {
  local bin=$1 db=$2 sock=$3
  shift 3
  "$bin" --db "$db" --listen "unix:$sock" "$@" >>"$T_TMP/daemon.log" 2>&1 &
  DAEMON_PID=$!
  T_PIDS+=("$DAEMON_PID")
  local i
  for i in $(seq 1 100); do
    if "$COLLTUNE_CLI" --server "unix:$sock" --timeout-ms 500 profiles >/dev/null 2>&1; then
      return 0
    fi
    if ! kill -0 "$DAEMON_PID" 2>/dev/null; then
      echo "colltuned exited:"; cat "$T_TMP/daemon.log"; return 1
    fi
    sleep 0.1
  done
  echo "colltuned did not answer within 10 s"; return 1
}

# expected_points LIST COLLECTIVES SIZES: the points a campaign over these
# collectives (comma-separated) and sizes (bytes, blank-separated) measures,
# given `colltune-bench --list-algorithms` output LIST: every algorithm it
# offers at every size, but a native algorithm with a forced segment size
# (its line ends in that size) only from two segments up, and seed 003's
# datatype forms (their lines say "at --datatypes points only") nowhere.
expected_points() {
  awk -v list=",$2," -v sizes="$3" 'BEGIN { n = split(sizes, s, " ") }
    index(list, "," $1 ",") == 0 { next }
    NF == 3 { total += n; next }
    $2 ~ /_seg[0-9]+k$/ { for (i = 1; i <= n; i++) if (s[i] + 0 >= 2 * $NF) total++ }
    END { print total + 0 }' <<<"$1"
}

stop_daemon() {
  kill "$DAEMON_PID" 2>/dev/null
  wait "$DAEMON_PID" 2>/dev/null
  return 0
}

# MPI launchers. Open MPI needs these as root and when oversubscribed.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# A test must not hang: every MPI run gets a time limit.
MPI_TIMEOUT=${MPI_TIMEOUT:-120}
run_openmpi() { timeout -k 5 "$MPI_TIMEOUT" mpirun.openmpi "$@" </dev/null; }
run_mpich() { timeout -k 5 "$MPI_TIMEOUT" mpirun.mpich "$@" </dev/null; }

# eventually CMD...: runs CMD until it succeeds, a minute at most (status of
# the last try). For what a daemon does after answering late: the shim waits
# only milliseconds at MPI_Finalize for its report's answer
# (shim/runtime/report.h), so a report may still be stored after the job.
eventually() {
  local i
  for i in $(seq 120); do
    "$@" && return 0
    sleep 0.5
  done
  "$@"
}
