#!/usr/bin/env bash
# The web view's JSON API (docs/web-api.md) against a real colltuned on a
# seeded database: every endpoint, bad parameters (a clear 4xx and the
# daemon still up), the admin token on state-changing requests, the
# security headers, and what --http and --web-dir refuse.
#
# Args: colltuned colltune seed_web web/index.html
source tests/lib/testlib.sh
source tests/web/weblib.sh
args_as COLLTUNED COLLTUNE_CLI SEED -- "$@"
WEB_DIR=$(web_dir "$4")
if [ ! -e "$WEB_DIR/vendor/chart.umd.js" ]; then
  fail "web view files" "$WEB_DIR/vendor/chart.umd.js is missing: run scripts/install-deps.sh"
  finish; exit 1
fi

TOKEN_FILE="$T_TMP/admin.token"
head -c 24 /dev/urandom | base64 > "$TOKEN_FILE"
TOKEN=$(head -1 "$TOKEN_FILE")
if ! start_web "$COLLTUNED" "$T_TMP/api.db" "$T_TMP/d.sock" --admin-token-file "$TOKEN_FILE"; then
  fail "colltuned serves the web API" "$(cat "$T_TMP/daemon.log")"
  finish; exit 1
fi
check "the web view binds to loopback by default" grep -q "web view on http://127.0.0.1:" "$T_TMP/daemon.log"
check "a profile and 40 job reports are seeded" "$SEED" --server "unix:$T_TMP/d.sock" --jobs 40

# http METHOD PATH [BODY [HEADER...]]: prints "STATUS\nBODY".
http() {
  local method=$1 path=$2 body=${3-} args=()
  shift 3 2>/dev/null || shift $#
  for h in "$@"; do args+=(-H "$h"); done
  if [ "$method" = POST ]; then args+=(--data-binary "$body"); fi
  curl -s -X "$method" "${args[@]}" -w '\n%{http_code}' "$BASE_URL$path" |
    awk '{ lines[NR] = $0 } END { print lines[NR]; for (i = 1; i < NR; i++) print lines[i] }'
}
# expect NAME STATUS PYTHON-EXPR METHOD PATH [BODY [HEADER...]]: the answer
# has STATUS and a JSON body for which EXPR (over `d`) is true.
expect() {
  local name=$1 status=$2 expr=$3 out
  shift 3
  out=$(http "$@")
  if [ "$(head -1 <<<"$out")" = "$status" ] &&
     tail -n +2 <<<"$out" | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if ($expr) else 1)" 2>/dev/null; then
    pass "$name"
  else
    fail "$name" "wanted HTTP $status and $expr, got: $(head -c 600 <<<"$out")"
  fi
}
json() { curl -s "$BASE_URL$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print($2)"; }

JSON='Content-Type: application/json'
ADMIN="x-colltune-admin-token: $TOKEN"
HOSTILE='<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'

# --- read-only endpoints ---
expect "GET /profiles lists the three contexts" 200 \
  "len(d['profiles']) == 3 and {p['context']['cluster'] for p in d['profiles']} == {'hpc-a', 'hpc-b', '''$HOSTILE'''}" \
  GET /api/v1/profiles
ID=$(json /api/v1/profiles?cluster=hpc-a "d['profiles'][0]['id']")
expect "GET /profiles?cluster= filters" 200 "len(d['profiles']) == 1 and d['profiles'][0]['context']['library'] == 'Open MPI'" \
  GET "/api/v1/profiles?cluster=hpc-a"
expect "GET /profiles?library= filters" 200 "[p['context']['cluster'] for p in d['profiles']] == ['hpc-b']" \
  GET "/api/v1/profiles?library=MPICH"
expect "a summary counts jobs, decisions and violations" 200 \
  "[(p['job_reports'], p['rules_not_default'] > 0, p['violations'] > 0, p['last_report_at'] != '') for p in d['profiles']] == [(40, True, True, True)]" \
  GET "/api/v1/profiles?cluster=hpc-a"
# Every mock-up of the catalogue for the 9 collectives, default, and the
# library's own algorithms seed_web measures (some of Open MPI's), at 20 sizes.
ALGS=$(json /api/v1/algorithms "len([a for a in d['algorithms'] if a['collective'] in ('allgather','allreduce','alltoall','bcast','gather','reduce','reduce_scatter_block','scan','scatter') and not a['native']]) + 9")
OPEN_MPI_NATIVES=$(json /api/v1/algorithms "sorted((a['collective'], a['name']) for a in d['algorithms'] if a['native'] and 'Open MPI' in a['libraries'])")
# seed_web times the main context in the three regimes (common/regime.h).
expect "GET /profiles/ID has every point in every regime with its per-launch spread" 200 \
  "len({(p['collective'], p['algorithm']) for p in d['points'] if not p['algorithm'].startswith('native:')}) == $ALGS and all(sum(q['collective'] == p['collective'] and q['algorithm'] == p['algorithm'] and q['regime'] == p['regime'] for q in d['points']) == 20 for p in d['points']) and {p['regime'] for p in d['points']} == {'sync', 'loop', 'imbalance'} and all(p['launches'] == 5 and p['launch_min_seconds'] <= p['median_seconds'] <= p['launch_max_seconds'] and p['min_seconds'] <= p['launch_min_seconds'] for p in d['points'])" \
  GET "/api/v1/profiles/$ID"
expect "GET /profiles/ID: each campaign rule has its evidence per regime" 200 \
  "any(r['algorithm'] != 'default' for r in d['table']['rules']) and all([e['regime'] for e in r['regimes']] == ['sync', 'loop', 'imbalance'] for r in d['table']['rules'] if r['source'] == 'campaign') and any(any(e['won'] for e in r['regimes']) for r in d['table']['rules'] if r['algorithm'] != 'default') and all(e['speedup'] > 0 for r in d['table']['rules'] for e in r['regimes'])" \
  GET "/api/v1/profiles/$ID"
expect "GET /profiles/ID has the library's own algorithms, only those Open MPI has" 200 \
  "0 < len({(p['collective'], p['algorithm']) for p in d['points'] if p['algorithm'].startswith('native:')}) and {(p['collective'], p['algorithm']) for p in d['points'] if p['algorithm'].startswith('native:')} <= set(map(tuple, $OPEN_MPI_NATIVES))" \
  GET "/api/v1/profiles/$ID"
expect "GET /profiles/ID lists each campaign launch with its uploader (the unix socket's peer)" 200 \
  "len(d['campaign_launches']) == d['profile']['launches'] > 0 and all(int(l['uid']) == $(id -u) and int(l['gid']) == $(id -g) and l['points'] > 0 and l['uploaded_at'] for l in d['campaign_launches'])" \
  GET "/api/v1/profiles/$ID"
expect "GET /profiles/ID has the current table" 200 \
  "d['table']['version'] == d['profile']['table_version'] and any(r['algorithm'] != 'default' for r in d['table']['rules'])" \
  GET "/api/v1/profiles/$ID"
expect "GET /profiles/ID/history: newest first" 200 \
  "len(d['versions']) > 1 and [int(v['version']) for v in d['versions']] == sorted((int(v['version']) for v in d['versions']), reverse=True)" \
  GET "/api/v1/profiles/$ID/history"
CURRENT=$(json "/api/v1/profiles/$ID" "d['table']['version']")
expect "GET /profiles/ID/tables/0 is the current version" 200 "d['table']['version'] == '$CURRENT'" \
  GET "/api/v1/profiles/$ID/tables/0"
expect "GET /profiles/ID/tables/1 is version 1" 200 "d['table']['version'] == '1'" \
  GET "/api/v1/profiles/$ID/tables/1"
VIOLATIONS=$(json "/api/v1/profiles?cluster=hpc-a" "d['profiles'][0]['violations']")
expect "GET /profiles/ID/violations: as many as the summary says, and the library's defects" 200 \
  "len([v for v in d['violations'] if v['kind'] != 'defect']) == $VIOLATIONS and {v['kind'] for v in d['violations']} == {'guideline', 'selection', 'monotony', 'defect'}" \
  GET "/api/v1/profiles/$ID/violations"
# Defects: colltune's quirks table for the profile's library (Open MPI's
# allreduce ring is wrong for non-commutative operations), with evidence.
expect "GET /profiles/ID/violations: library defects name the algorithm, the forms and the evidence" 200 \
  "any(v['kind'] == 'defect' and (v['collective'], v['algorithm']) == ('allreduce', 'native:ring') and v['forms'] == 'a non-commutative operation' and 'Open MPI 4.1.4' in v['evidence'] for v in d['violations'])" \
  GET "/api/v1/profiles/$ID/violations"
# A native algorithm faster than default is the library's selection bug,
# never a guideline violation; a mock-up is never a selection violation.
expect "GET /profiles/ID/violations: selection violations name the library's own algorithm" 200 \
  "all((v['kind'] == 'selection') == v['algorithm'].startswith('native:') for v in d['violations'] if v['kind'] not in ('monotony', 'defect')) and all(v['guideline'] == '' and v['factor'] > 1 for v in d['violations'] if v['kind'] == 'selection') and ('allreduce', 'native:ring') in {(v['collective'], v['algorithm']) for v in d['violations'] if v['kind'] == 'selection'}" \
  GET "/api/v1/profiles/$ID/violations"
# Each guideline and selection violation says what the current table runs
# there; the seeded recursive doubling allreduce is faster from a barrier and
# twice as slow back to back: not chosen, and the reason says where it lost.
expect "GET /profiles/ID/violations: what the table runs, and why a faster algorithm is not chosen" 200 \
  "all(v['table_algorithm'] != '' for v in d['violations'] if v['kind'] in ('guideline', 'selection')) and any(v['algorithm'] == 'native:recursive_doubling' and v['table_algorithm'] != v['algorithm'] and v['not_chosen'].startswith('slower back to back') for v in d['violations'])" \
  GET "/api/v1/profiles/$ID/violations"
expect "GET /profiles/ID/pins: none yet" 200 "d['pins'] == []" GET "/api/v1/profiles/$ID/pins"
expect "GET /profiles/ID/jobs: 40 in all, newest first" 200 \
  "d['total'] == 40 and len(d['reports']) == 40 and d['reports'][0]['job_id'] == 'job-880039' and [r['received_at'] for r in d['reports']] == sorted((r['received_at'] for r in d['reports']), reverse=True)" \
  GET "/api/v1/profiles/$ID/jobs"
expect "GET /profiles/ID/jobs?limit=5" 200 "len(d['reports']) == 5 and d['total'] == 40" \
  GET "/api/v1/profiles/$ID/jobs?limit=5"
# seed_web's jobs run mock-ups only where campaigns found them faster and
# explore default too, so over all jobs what they observe favours the
# mock-ups (single cells are quantized by the histogram's bins).
expect "job reports carry observed speedups of the tuned collectives" 200 \
  "sum(int(o['compared_calls']) > 0 for r in d['reports'] for o in r['collectives']) > 10 and sum(int(o['compared_calls']) for r in d['reports'] for o in r['collectives']) / sum(int(o['compared_calls']) / o['speedup'] for r in d['reports'] for o in r['collectives'] if o['compared_calls'] != '0') > 1.05" \
  GET "/api/v1/profiles/$ID/jobs"
expect "GET /algorithms names every algorithm with its guideline" 200 \
  "any(a['name'] == 'allreduce_as_reduce_bcast' and a['guideline'] == 'GL5' and a['collective'] == 'allreduce' and a['native'] is False and a['libraries'] == [] for a in d['algorithms'])" \
  GET /api/v1/algorithms
expect "GET /algorithms marks the libraries' own algorithms, with their libraries" 200 \
  "any(a['name'] == 'native:ring' and a['collective'] == 'allreduce' and a['native'] is True and a['libraries'] == ['Open MPI'] for a in d['algorithms']) and all(a['native'] == a['name'].startswith('native:') for a in d['algorithms'])" \
  GET /api/v1/algorithms

# --- bad parameters: a clear 4xx with the API's error shape ---
expect "a non-numeric profile id is 400" 400 "d['error']['code'] == 'INVALID_ARGUMENT' and 'profile id' in d['error']['message']" \
  GET /api/v1/profiles/abc
expect "profile id 0 is 400" 400 "'profile id' in d['error']['message']" GET /api/v1/profiles/0
expect "a profile id beyond int64 is 400" 400 "'profile id' in d['error']['message']" GET /api/v1/profiles/99999999999999999999
expect "an unknown profile is 404" 404 "d['error']['code'] == 'NOT_FOUND'" GET /api/v1/profiles/424242
expect "an unknown profile's history is 404" 404 "d['error']['code'] == 'NOT_FOUND'" GET /api/v1/profiles/424242/history
expect "an unknown table version is 404" 404 "d['error']['code'] == 'NOT_FOUND'" GET "/api/v1/profiles/$ID/tables/9999"
expect "a negative table version is 400" 400 "'table version' in d['error']['message']" GET "/api/v1/profiles/$ID/tables/-1"
expect "an unknown query parameter is 400" 400 "'unknown query parameter' in d['error']['message']" GET "/api/v1/profiles?clutser=hpc-a"
expect "an error quoting bytes that are not UTF-8 is still valid JSON" 400 "d['error']['message'] == \"unknown query parameter '?'\"" \
  GET "/api/v1/profiles?%FF=1"
expect "limit=0 is 400" 400 "'limit' in d['error']['message']" GET "/api/v1/profiles/$ID/jobs?limit=0"
expect "limit above the maximum is 400" 400 "'limit' in d['error']['message']" GET "/api/v1/profiles/$ID/jobs?limit=1001"
expect "a non-numeric limit is 400" 400 "'limit' in d['error']['message']" GET "/api/v1/profiles/$ID/jobs?limit=ten"
expect "an unknown endpoint is 404 JSON" 404 "d['error']['code'] == 'NOT_FOUND'" GET /api/v1/nothing
expect "GET on a POST-only endpoint is 404 JSON" 404 "'error' in d" GET "/api/v1/profiles/$ID/rollback"
expect "a path that climbs out of web/ is 404" 404 "'error' in d" GET "/../../etc/passwd"
expect "only the page's own files are served" 404 "'error' in d" GET "/vendor/chartXumdXjs"

# --- state-changing requests: POST with the admin token ---
expect "rollback without a token is 401" 401 "d['error']['code'] == 'UNAUTHENTICATED'" \
  POST "/api/v1/profiles/$ID/rollback" '{"version": 1}' "$JSON"
expect "rollback with a wrong token is 403" 403 "d['error']['code'] == 'PERMISSION_DENIED'" \
  POST "/api/v1/profiles/$ID/rollback" '{"version": 1}' "$JSON" "x-colltune-admin-token: wrong-token-of-the-right-size"
expect "a refused rollback made no version" 200 "d['table']['version'] == '$CURRENT'" GET "/api/v1/profiles/$ID"
expect "rollback with a form body is 400" 400 "'JSON' in d['error']['message']" \
  POST "/api/v1/profiles/$ID/rollback" 'version=1' "$ADMIN"
expect "rollback with malformed JSON is 400" 400 "'request body' in d['error']['message']" \
  POST "/api/v1/profiles/$ID/rollback" '{"version": ' "$JSON" "$ADMIN"
expect "rollback with an unknown field is 400" 400 "'request body' in d['error']['message']" \
  POST "/api/v1/profiles/$ID/rollback" '{"version": 1, "force": true}' "$JSON" "$ADMIN"
expect "rollback without a version is 400" 400 "'version' in d['error']['message']" \
  POST "/api/v1/profiles/$ID/rollback" '{}' "$JSON" "$ADMIN"
expect "rollback to an unknown version is 404" 404 "d['error']['code'] == 'NOT_FOUND'" \
  POST "/api/v1/profiles/$ID/rollback" '{"version": 9999}' "$JSON" "$ADMIN"
expect "rollback naming another profile in the body is 400" 400 "'differs' in d['error']['message']" \
  POST "/api/v1/profiles/$ID/rollback" '{"version": 1, "profile_id": 3}' "$JSON" "$ADMIN"
big=$(python3 -c "print('{\"note\": \"' + 'x' * 70000 + '\"}')")
expect "a body over 64 KiB is 413" 413 "'error' in d" \
  POST "/api/v1/profiles/$ID/pins" "$big" "$JSON" "$ADMIN"
expect "rollback with the token makes a new version" 200 "int(d['table_version']) == $CURRENT + 1" \
  POST "/api/v1/profiles/$ID/rollback" '{"version": 1}' "$JSON" "$ADMIN"
V1=$(json "/api/v1/profiles/$ID/tables/1" "sorted((r['collective'], r['min_bytes'], r['algorithm']) for r in d['table']['rules'])")
NOW=$(json "/api/v1/profiles/$ID/tables/0" "sorted((r['collective'], r['min_bytes'], r['algorithm']) for r in d['table']['rules'])")
check "the rolled-back table decides what version 1 did" test "$V1" = "$NOW"
expect "the history says why" 200 "'roll' in d['versions'][0]['reason'].lower()" GET "/api/v1/profiles/$ID/history"

expect "pin without a token is 401" 401 "'error' in d" \
  POST "/api/v1/profiles/$ID/pins" '{"collective": "bcast", "min_bytes": 0, "max_bytes": -1, "algorithm": "bcast_as_allgatherv"}' "$JSON"
expect "pin of an unknown algorithm is 400" 400 "d['error']['code'] == 'INVALID_ARGUMENT'" \
  POST "/api/v1/profiles/$ID/pins" '{"collective": "bcast", "min_bytes": 0, "max_bytes": -1, "algorithm": "bcast_as_magic"}' "$JSON" "$ADMIN"
expect "pin of another collective's algorithm is 400" 400 "d['error']['code'] == 'INVALID_ARGUMENT'" \
  POST "/api/v1/profiles/$ID/pins" '{"collective": "bcast", "min_bytes": 0, "max_bytes": -1, "algorithm": "allreduce_as_reduce_bcast"}' "$JSON" "$ADMIN"
expect "pin with an inverted range is 400" 400 "d['error']['code'] == 'INVALID_ARGUMENT'" \
  POST "/api/v1/profiles/$ID/pins" '{"collective": "bcast", "min_bytes": 100, "max_bytes": 10, "algorithm": "bcast_as_allgatherv"}' "$JSON" "$ADMIN"
expect "pin with the token" 200 "int(d['pin_id']) > 0" \
  POST "/api/v1/profiles/$ID/pins" '{"collective": "bcast", "min_bytes": 0, "max_bytes": -1, "algorithm": "bcast_as_allgatherv", "note": "<b>web test</b>"}' "$JSON" "$ADMIN"
PIN=$(json "/api/v1/profiles/$ID/pins" "d['pins'][0]['id']")
expect "GET /pins shows the pin with its note as given" 200 "len(d['pins']) == 1 and d['pins'][0]['note'] == '<b>web test</b>'" \
  GET "/api/v1/profiles/$ID/pins"
expect "the table follows the pin" 200 \
  "[(r['algorithm'], r['pinned']) for r in d['table']['rules'] if r['collective'] == 'bcast'] == [('bcast_as_allgatherv', True)]" \
  GET "/api/v1/profiles/$ID"
expect "unpin without a token is 401" 401 "'error' in d" POST "/api/v1/profiles/$ID/pins/$PIN/unpin" ''
expect "unpin of a non-numeric pin is 400" 400 "'pin id' in d['error']['message']" \
  POST "/api/v1/profiles/$ID/pins/x/unpin" '' "$ADMIN"
expect "unpin with the token" 200 "int(d['table_version']) > 0" POST "/api/v1/profiles/$ID/pins/$PIN/unpin" '' "$ADMIN"
expect "unpin of a pin that is gone is 404" 404 "d['error']['code'] == 'NOT_FOUND'" \
  POST "/api/v1/profiles/$ID/pins/$PIN/unpin" '' "$ADMIN"
expect "the pin is gone" 200 "d['pins'] == []" GET "/api/v1/profiles/$ID/pins"
# The same admin operations are in the CLI, over gRPC.
check "colltune history lists the web's rollback and pin versions" \
  bash -c "'$COLLTUNE_CLI' --server unix:$T_TMP/d.sock history --profile $ID | grep -qi 'roll'"

check "colltune jobs lists what the API lists" bash -c "
  '$COLLTUNE_CLI' --server unix:$T_TMP/d.sock jobs --profile $ID --limit 5 --json |
  python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d[\"total\"] == 40 and [r[\"job_id\"] for r in d[\"reports\"]] == [\"job-8800%02d\" % i for i in range(39, 34, -1)] else 1)'"

# --- the page and its headers ---
headers=$(curl -s -D - -o "$T_TMP/index.html" "$BASE_URL/")
check "/ serves the page" grep -q '<main id="app"' "$T_TMP/index.html"
check "the page is served with a script-src 'self' policy" grep -qi "content-security-policy: .*script-src 'self'" <<<"$headers"
check "answers say nosniff" grep -qi "x-content-type-options: nosniff" <<<"$headers"
check "the API sends no CORS header" bash -c "! curl -s -D - -o /dev/null -H 'Origin: http://evil.example' '$BASE_URL/api/v1/profiles' | grep -qi access-control-allow"
check "the chart library is served from the daemon" bash -c "curl -sf '$BASE_URL/vendor/chart.umd.js' | head -c 2000 | grep -q Chart"
check "300 random malformed requests get JSON answers below 500" \
  python3 "$(dirname "$(abspath "$0")")/fuzz_api.py" "$BASE_URL" "$TOKEN" "$ID" 300
check "colltuned survived every bad request" kill -0 "$DAEMON_PID"

# --- what colltuned refuses at start ---
check_fails "--http with a bad address is refused" \
  "$COLLTUNED" --db "$T_TMP/x.db" --listen "unix:$T_TMP/x.sock" --http "localhost:notaport" --web-dir "$WEB_DIR"
out=$("$COLLTUNED" --db "$T_TMP/y.db" --listen "unix:$T_TMP/y.sock" --http 0 --web-dir "$T_TMP/nowhere" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "nowhere/index.html" <<<"$out"; then pass "a missing --web-dir is refused, naming the file"
else fail "a missing --web-dir is refused, naming the file" "rc=$rc $out"; fi
PORT=${BASE_URL##*:}
out=$("$COLLTUNED" --db "$T_TMP/z.db" --listen "unix:$T_TMP/z.sock" --http "$PORT" --web-dir "$WEB_DIR" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "cannot listen" <<<"$out"; then pass "a port in use is refused"
else fail "a port in use is refused" "rc=$rc $out"; fi

# A daemon without an admin token refuses every change.
stop_daemon
start_web "$COLLTUNED" "$T_TMP/api.db" "$T_TMP/d2.sock" || { fail "restart without a token" "$(cat "$T_TMP/daemon.log")"; finish; exit 1; }
expect "without a configured token, rollback is 403" 403 "'admin token' in d['error']['message']" \
  POST "/api/v1/profiles/$ID/rollback" '{"version": 1}' "$JSON" "$ADMIN"
finish
