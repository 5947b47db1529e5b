# Shared by the web view's tests: finds the web/ source directory (with the
# npm packages scripts/install-deps.sh installed there) and starts colltuned
# with its web view on a free loopback port.
#
#   web_dir RUNFILE       prints the real web/ directory of a runfile in it
#   start_web COLLTUNED DB SOCKET [ARGS...]
#                         starts colltuned --http 0, sets DAEMON_PID and
#                         BASE_URL (http://127.0.0.1:PORT)

web_dir() { dirname "$(readlink -f "$1")"; }

start_web() {
  local bin=$1 db=$2 sock=$3
  shift 3
  start_daemon "$bin" "$db" "$sock" --http 0 --web-dir "$WEB_DIR" "$@" || return 1
  local i
  for i in $(seq 1 50); do
    BASE_URL=$(grep -o 'web view on http://[^/]*' "$T_TMP/daemon.log" | tail -1 | sed 's/web view on //')
    [ -n "$BASE_URL" ] && return 0
    sleep 0.1
  done
  echo "colltuned did not log its web address"; cat "$T_TMP/daemon.log"; return 1
}
