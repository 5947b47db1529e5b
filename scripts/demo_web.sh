#!/usr/bin/env bash
# The web view on a realistic profile: builds colltuned, starts it on a
# temporary database with the web view on loopback, fills it with seed_web's
# profile (9 collectives x 20 sizes x every algorithm x 5 launches, 1000 job
# reports, a second context and one with a hostile name), prints the address
# and the admin token, and serves until Ctrl-C.
#
#   scripts/demo_web.sh [--port 8080] [--jobs 1000]
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=8080
JOBS=1000
source scripts/lib/options.sh
options "scripts/demo_web.sh [--port N] [--jobs N]" --port=PORT --jobs=JOBS -- "$@"
scripts/install-deps.sh
bazel build -c opt //daemon:colltuned //tests/web:seed_web >/dev/null 2>&1 ||
  bazel build -c opt //daemon:colltuned //tests/web:seed_web
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
DIR=$(mktemp -d /tmp/colltune-web.XXXXXX)
head -c 24 /dev/urandom | base64 > "$DIR/admin.token"
"$BIN/daemon/colltuned" --db "$DIR/colltune.db" --listen "unix:$DIR/d.sock" \
  --http "$PORT" --web-dir web --admin-token-file "$DIR/admin.token" \
  --max-reports-per-uid-per-minute 0 \
  2>"$DIR/daemon.log" &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 1 50); do
  grep -q "web view on" "$DIR/daemon.log" && break
  kill -0 $PID 2>/dev/null || { cat "$DIR/daemon.log"; exit 1; }
  sleep 0.1
done
"$BIN/tests/web/seed_web" --server "unix:$DIR/d.sock" --jobs "$JOBS"
echo
echo "web view:    http://127.0.0.1:$PORT/"
echo "admin token: $(head -1 "$DIR/admin.token")"
echo "Ctrl-C stops the daemon and removes its database."
wait $PID
