#!/usr/bin/env bash
# The web view in a real browser: Debian's Chromium, headless, driven by
# playwright-core (browser_test.js) against colltuned serving a database
# seeded with the realistic profile (seed_web: 9 collectives x 20 sizes x
# every mock-up and some of the library's own algorithms x 5 launches, 1000
# job reports, a hostile context).
# Screenshots go to the test's undeclared outputs
# (bazel-testlogs/tests/web/browser_test/test.outputs/).
#
# Args: colltuned colltune seed_web web/index.html browser_test.js
source tests/lib/testlib.sh
source tests/web/weblib.sh
args_as COLLTUNED COLLTUNE_CLI SEED -- "$@"
WEB_DIR=$(web_dir "$4")
SCRIPT=$(abspath "$5")
ARTIFACTS=${TEST_UNDECLARED_OUTPUTS_DIR:-$T_TMP/artifacts}
mkdir -p "$ARTIFACTS"
PLAYWRIGHT_CORE="$WEB_DIR/node_modules/playwright-core"

for need in /usr/bin/chromium "$PLAYWRIGHT_CORE/package.json" "$WEB_DIR/vendor/chart.umd.js"; do
  if [ ! -e "$need" ]; then
    fail "browser test prerequisites" "$need is missing: run scripts/install-deps.sh"
    finish; exit 1
  fi
done

TOKEN_FILE="$T_TMP/admin.token"
head -c 24 /dev/urandom | base64 > "$TOKEN_FILE"
# One uid seeds 1000 job reports: no rate limit (auth_test tests the limits).
if ! start_web "$COLLTUNED" "$T_TMP/web.db" "$T_TMP/d.sock" --admin-token-file "$TOKEN_FILE" \
     --max-reports-per-uid-per-minute 0; then
  fail "colltuned serves the web view" "$(cat "$T_TMP/daemon.log")"
  finish; exit 1
fi
check "the realistic profile and 1000 job reports are seeded" \
  "$SEED" --server "unix:$T_TMP/d.sock" --jobs 1000

out=$(BASE_URL="$BASE_URL" PLAYWRIGHT_CORE="$PLAYWRIGHT_CORE" ARTIFACTS="$ARTIFACTS" \
  ADMIN_TOKEN="$(head -1 "$TOKEN_FILE")" timeout -k 5 300 node "$SCRIPT" 2>&1)
rc=$?
printf '%s\n' "$out" | grep '^MEASURE:' | tee "$ARTIFACTS/render.txt"
while IFS= read -r line; do
  case "$line" in
    PASS:\ *) pass "${line#PASS: }" ;;
    FAIL:\ *) rest=${line#FAIL: }; fail "${rest%% :: *}" "${rest#* :: }" ;;
  esac
done <<<"$out"
if [ $rc -ne 0 ] && ! grep -q '^FAIL:' <<<"$out"; then
  fail "browser test ran" "$out"
fi
for shot in overview context chart-relative chart-absolute chart-natives violations chart-gatherv hostile; do
  check "screenshot $shot.png saved" test -s "$ARTIFACTS/$shot.png"
done
check "colltuned survived the browser session" kill -0 "$DAEMON_PID"
finish
