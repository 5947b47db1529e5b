#!/usr/bin/env bash
# GET /metrics (docs/operators-guide.md#metrics) of a real colltuned on a real
# SQLite file, driven by the real CLI, a real MPI job under the shim and its
# agent, and seed_web's gRPC uploads and reports: promtool accepts every
# scrape, and each number moves exactly as the driving predicts. The Grafana
# dashboard (packaging/grafana) uses only metric names a scrape has.
#
# Args: colltuned colltune seed_web web/index.html collective_mix
#       libcolltune.so promtext.py colltune-dashboard.json colltune.proto
source tests/lib/testlib.sh
source tests/web/weblib.sh
args_as COLLTUNED COLLTUNE_CLI SEED -- "$@"
WEB_DIR=$(web_dir "$4")
APP=$(abspath "$5")
SHIM=$(abspath "$6")
PROMTEXT=$(abspath "$7")
DASHBOARD=$(abspath "$8")
PROTO=$(abspath "$9")
DB="$T_TMP/metrics.db"
SOCK="$T_TMP/d.sock"
SERVER="unix:$SOCK"
CT=("$COLLTUNE_CLI" --server "$SERVER")

if ! command -v promtool >/dev/null; then
  fail "promtool is installed" "run scripts/install-deps.sh (Debian package prometheus)"
  finish; exit 1
fi
started_at=$(date +%s.%N)
if ! start_web "$COLLTUNED" "$DB" "$SOCK"; then
  fail "colltuned serves the web port" "$(cat "$T_TMP/daemon.log")"
  finish; exit 1
fi
up_at=$(date +%s.%N)

# scrape NAME: GET /metrics into $T_TMP/NAME.prom (headers in NAME.headers).
scrape() {
  curl -sf -D "$T_TMP/$1.headers" -o "$T_TMP/$1.prom" "$BASE_URL/metrics"
}
# m SCRAPE METRIC [LABEL=VALUE...]: the sum of the matching samples.
m() {
  local s=$1
  shift
  python3 "$PROMTEXT" get "$T_TMP/$s.prom" "$@"
}
# delta A B METRIC [LABEL=VALUE...]: how much the value rose from scrape A to B.
delta() {
  python3 "$PROMTEXT" delta "$T_TMP/$1.prom" "$T_TMP/$2.prom" "${@:3}"
}
# expect_eq NAME WANT GOT
expect_eq() {
  if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "wanted $2, got $3"; fi
}
promtool_ok() {  # promtool check metrics, with nothing to say (no lint)
  local out
  out=$(promtool check metrics <"$T_TMP/$1.prom" 2>&1) && [ -z "$out" ] || { echo "$out"; return 1; }
}

# --- a fresh daemon ---
check "GET /metrics answers 200" scrape s0
check "served as the text exposition format 0.0.4" \
  grep -qi '^content-type: text/plain; version=0.0.4' "$T_TMP/s0.headers"
check "promtool check metrics accepts a fresh daemon's scrape (no lint either)" promtool_ok s0
check "every family has HELP and TYPE, counters end in _total, histograms are whole" \
  python3 "$PROMTEXT" check "$T_TMP/s0.prom"
# The metrics the operators' guide documents.
missing=""
for family in colltune_grpc_server_handled_total colltune_grpc_server_handling_seconds \
    colltune_job_reports_ingested_total colltune_job_reports_rejected_total \
    colltune_job_report_timings_total colltune_job_report_timed_calls_total \
    colltune_job_report_explored_calls_total colltune_process_start_time_seconds \
    colltune_build_info colltune_profiles colltune_table_version \
    colltune_open_violations colltune_database_size_bytes; do
  grep -q "^# TYPE $family " "$T_TMP/s0.prom" || missing+=" $family"
done
expect_eq "every documented metric family is exported" "" "$missing"
check "the start time is when the daemon started" python3 -c '
import sys
t = float(sys.argv[1])
sys.exit(0 if float(sys.argv[2]) - 1 <= t <= float(sys.argv[3]) + 1 else 1)' \
  "$(m s0 colltune_process_start_time_seconds)" "$started_at" "$up_at"
expect_eq "colltune_build_info is 1, with gRPC's version" "1" \
  "$(m s0 colltune_build_info)"
check "colltune_build_info names a gRPC version" \
  grep -Eq '^colltune_build_info\{.*grpc_version="[0-9]+\.[0-9]+' "$T_TMP/s0.prom"
expect_eq "no profile yet" "0" "$(m s0 colltune_profiles)"
expect_eq "no report rejected yet" "0" "$(m s0 colltune_job_reports_rejected_total)"
# Every method of the service is there from the start (rate() needs a 0).
methods=$(python3 "$PROMTEXT" labels "$T_TMP/s0.prom" colltune_grpc_server_handling_seconds_count method | sort | tr '\n' ' ')
proto_methods=$(awk '$1 == "rpc" { sub(/\(.*/, "", $2); print $2 }' "$PROTO")
expect_eq "a latency histogram per service method, and other" \
  "$(printf '%s\n' $proto_methods other | sort | tr '\n' ' ')" "$methods"

# --- the CLI: exact RPC counts ---
scrape a
for _ in 1 2 3 4 5; do "${CT[@]}" table --comm-size 4 >/dev/null; done
for _ in 1 2; do "${CT[@]}" table --comm-size 4 --nodes 8 >/dev/null 2>&1; done
for _ in 1 2 3; do "${CT[@]}" profiles >/dev/null; done
scrape b
expect_eq "5 tables fetched: GetTable OK rose by 5" 5 \
  "$(delta a b colltune_grpc_server_handled_total method=GetTable code=OK)"
expect_eq "2 invalid table requests: GetTable INVALID_ARGUMENT rose by 2" 2 \
  "$(delta a b colltune_grpc_server_handled_total method=GetTable code=INVALID_ARGUMENT)"
expect_eq "GetTable's latency histogram counted all 7" 7 \
  "$(delta a b colltune_grpc_server_handling_seconds_count method=GetTable)"
expect_eq "3 profile listings: ListProfiles rose by 3" 3 \
  "$(delta a b colltune_grpc_server_handled_total method=ListProfiles)"
expect_eq "nothing else was called" "0 0" \
  "$(delta a b colltune_grpc_server_handled_total method=ReportJob) $(delta a b colltune_grpc_server_handled_total method=UploadMeasurements)"

# --- seed_web: uploads and reports over gRPC, three contexts (one with
# quotes and markup in its names) ---
out=$("$SEED" --server "$SERVER" --jobs 3 --samples 3 2>&1)
check "seed_web uploads three contexts and reports" grep -q "3 contexts" <<<"$out"
sent=$(sed -n 's/.*, \([0-9]*\) job reports.*/\1/p' <<<"$out")
scrape c
expect_eq "each report seed_web sent is one ReportJob call" "$sent" \
  "$(delta b c colltune_grpc_server_handled_total method=ReportJob code=OK)"
expect_eq "... and one report ingested (source online)" "$sent" \
  "$(delta b c colltune_job_reports_ingested_total source=online)"
uploads=$(delta b c colltune_grpc_server_handled_total method=UploadMeasurements code=OK)
check "seed_web's uploads are counted" test "$uploads" -gt 0
expect_eq "UploadMeasurements' histogram counts each upload" "$uploads" \
  "$(delta b c colltune_grpc_server_handling_seconds_count method=UploadMeasurements)"
check "promtool accepts the scrape with hostile label values" promtool_ok c
check "histograms are cumulative and _count is each +Inf bucket" \
  python3 "$PROMTEXT" check "$T_TMP/c.prom"
check "each method's _count equals its calls over every status code" python3 -c '
import json, subprocess, sys
prom, scrape = sys.argv[1], sys.argv[2]
def series(name):
    out = subprocess.run([sys.executable, prom, "series", scrape, name], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines()]
calls = {}
for s in series("colltune_grpc_server_handled_total"):
    calls[s["labels"]["method"]] = calls.get(s["labels"]["method"], 0) + s["value"]
bad = [(c["labels"]["method"], c["value"], calls.get(c["labels"]["method"]))
       for c in series("colltune_grpc_server_handling_seconds_count")
       if c["value"] != calls.get(c["labels"]["method"], 0)]
print(bad); sys.exit(1 if bad else 0)' "$PROMTEXT" "$T_TMP/c.prom"

# The state read at scrape time against what the CLI says.
profiles=$("${CT[@]}" profiles --json)
expect_eq "colltune_profiles counts the profiles" \
  "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)))' <<<"$profiles")" \
  "$(m c colltune_profiles)"
check "colltune_table_version is each profile's version, its labels its context" python3 -c '
import json, subprocess, sys
prom, scrape = sys.argv[1], sys.argv[2]
want = {str(p["id"]): (p["table_version"], p["context"]) for p in json.load(sys.stdin)}
got = {}
out = subprocess.run([sys.executable, prom, "series", scrape, "colltune_table_version"], capture_output=True, text=True, check=True).stdout
for line in out.splitlines():
    s = json.loads(line)
    l = s["labels"]
    got[l["profile"]] = (int(s["value"]), {"cluster": l["cluster"], "library": l["library"],
        "library_version": l["library_version"], "comm_size": int(l["comm_size"]),
        "nodes": int(l["nodes"]), "ppn": int(l["ppn"])})
want = {k: (v, {f: c.get(f, 0 if f in ("comm_size", "nodes", "ppn") else "") for f in
        ("cluster", "library", "library_version", "comm_size", "nodes", "ppn")}) for k, (v, c) in want.items()}
if got != want:
    print("got", got); print("want", want); sys.exit(1)
if not any("\"" in c["cluster"] for _, c in got.values()):
    print("no label value with a quote was exercised"); sys.exit(1)' \
  "$PROMTEXT" "$T_TMP/c.prom" <<<"$profiles"
violations=$(for id in $(python3 -c 'import json,sys; print(" ".join(str(p["id"]) for p in json.load(sys.stdin)))' <<<"$profiles"); do
  "${CT[@]}" violations --profile "$id" --json; done |
  python3 -c '
import json, sys
from collections import Counter
text = sys.stdin.read()
dec = json.JSONDecoder(); i = 0; c = Counter({"guideline": 0, "selection": 0, "monotony": 0})
while i < len(text):
    if text[i].isspace(): i += 1; continue
    v, i = dec.raw_decode(text, i)
    c.update(x["kind"] for x in v if x["kind"] != "defect")
print(" ".join("%s=%d" % kv for kv in sorted(c.items())))')
got_violations=$(for k in guideline monotony selection; do printf '%s=%s ' "$k" "$(m c colltune_open_violations kind=$k)"; done)
expect_eq "colltune_open_violations by kind sums colltune violations over profiles" \
  "$violations" "${got_violations% }"
check "the seeded campaigns do have violations" test "$(m c colltune_open_violations)" -gt 0
wal=0
[ -e "$DB-wal" ] && wal=$(stat -c %s "$DB-wal")
expect_eq "colltune_database_size_bytes{file=main} is the file's size" \
  "$(stat -c %s "$DB")" "$(m c colltune_database_size_bytes file=main)"
expect_eq "colltune_database_size_bytes{file=wal} is the WAL's size" \
  "$wal" "$(m c colltune_database_size_bytes file=wal)"
check "the WAL holds the seeded data (so both files are measured)" test "$wal" -gt 0

# --- a real MPI job under the shim: it fetches the table and sends the
# report at MPI_Finalize with its own gRPC calls, and says what it sent ---
scrape d
out=$(run_openmpi -np 4 -x LD_PRELOAD="$SHIM" -x COLLTUNE_SERVER="$SERVER" \
  -x COLLTUNE_AGENT="$T_TMP/no-agent" -x COLLTUNE_CACHE_DIR="$T_TMP/cache" \
  -x COLLTUNE_SPOOL_DIR="$T_TMP/spool" -x COLLTUNE_SAMPLE=1/4 -x COLLTUNE_EXPLORE=0.2 \
  -x COLLTUNE_EXPLORE_MIN_CALLS=100 -x COLLTUNE_VERBOSE=1 \
  "$APP" --collectives allreduce,bcast --bytes 4096 --iters 1500 2>&1)
if [ $? -eq 0 ] && grep -q "results verified" <<<"$out" && grep -q "sent to $SERVER" <<<"$out"; then
  pass "a job under the shim runs and sends its report"
else
  fail "a job under the shim runs and sends its report" "$out"
fi
# The shim waits for the daemon's answer only so long at MPI_Finalize; under
# load it may say "sent to ... (no answer within N ms ...)". The daemon may
# then still be storing the report, or it never got to read it before the job
# closed the connection (which cancels the call): the report stays in the
# spool for the agent, none exists here, so after ten seconds without it the
# test does what the agent would, `colltune flush`. The counters move once
# the report is stored: scrape until they do (or a minute has passed).
ingested() { scrape e && [ "$(delta d e colltune_job_reports_ingested_total source=online)" != 0 ]; }
if grep -q "(no answer within" <<<"$out"; then
  for _ in $(seq 20); do ingested && break; sleep 0.5; done
  ingested || "${CT[@]}" flush --spool-dir "$T_TMP/spool" >/dev/null 2>&1
fi
eventually ingested
# "report of N cells (T timed calls, E explored) and ..."
sent=$(grep -o "report of [0-9]* cells ([0-9]* timed calls, [0-9]* explored)" <<<"$out")
check "the shim says what its report holds" test -n "$sent"
timings=$(awk '{ print $3 }' <<<"$sent")
timed=$(awk '{ print substr($5, 2) }' <<<"$sent")
explored=$(awk '{ print $8 }' <<<"$sent")
expect_eq "the job's table was one GetTable call" 1 \
  "$(delta d e colltune_grpc_server_handled_total method=GetTable code=OK)"
expect_eq "its report is one report ingested" 1 \
  "$(delta d e colltune_job_reports_ingested_total source=online)"
expect_eq "timed calls rose by the report's timed calls ($timed)" "$timed" \
  "$(delta d e colltune_job_report_timed_calls_total)"
expect_eq "explored calls rose by the report's explored calls ($explored)" "$explored" \
  "$(delta d e colltune_job_report_explored_calls_total)"
check "the job explored (so the exploration counter was exercised)" test "$explored" -gt 0
expect_eq "timings rose by the report's timing lines ($timings)" "$timings" \
  "$(delta d e colltune_job_report_timings_total)"

# --- malformed reports through the agent's spool: refused by reason ---
mkdir -p "$T_TMP/bad"
report_head() {  # a well-formed report's header lines for job $1
  printf 'colltune-report 1\njob %s\nrun %s-1\nlibrary Open MPI\nlibrary_version 4.1.4\n' "$1" "$1"
  printf 'comm_size 4\nnodes 1\nppn 4\ntable_version 0\nfinal 1\nranks 4\n'
}
# send FILE-CONTENT: flush one spooled report; prints the flush summary.
send() {
  rm -rf "$T_TMP/bad"/*
  cat >"$T_TMP/bad/one.report"
  "${CT[@]}" flush --spool-dir "$T_TMP/bad" 2>&1
}
scrape f
# The histogram counts 5 calls, the timing says 1000 were timed.
out=$({ report_head forged; echo "timing 4 0 scatter default 17 1000 1000 0 50000000 120 1 5"; echo end; } | send)
check "the daemon refuses a report whose histogram disagrees" grep -q "0 sent, 1 rejected" <<<"$out"
scrape g
expect_eq "rejected{reason=bad_timing} rose by 1" 1 \
  "$(delta f g colltune_job_reports_rejected_total reason=bad_timing)"
expect_eq "no other reason moved" 1 "$(delta f g colltune_job_reports_rejected_total)"
expect_eq "ReportJob INVALID_ARGUMENT rose by 1" 1 \
  "$(delta f g colltune_grpc_server_handled_total method=ReportJob code=INVALID_ARGUMENT)"
expect_eq "nothing was ingested" 0 "$(delta f g colltune_job_reports_ingested_total)"
# The same cell twice (5 timed calls of 700 us: bin 120 is [2^17, 2^17 * 9/8) ns).
line="timing 4 0 scatter default 17 1000 5 0 700000 120 1 5"
out=$({ report_head twice; echo "$line"; echo "$line"; echo end; } | send)
check "the daemon refuses a report that repeats a cell" grep -q "0 sent, 1 rejected" <<<"$out"
scrape h
expect_eq "rejected{reason=duplicate} rose by 1" 1 \
  "$(delta g h colltune_job_reports_rejected_total reason=duplicate)"
expect_eq "... and only it" 1 "$(delta g h colltune_job_reports_rejected_total)"
# A valid one through the same path is ingested.
out=$({ report_head fine; echo "$line"; echo end; } | send)
check "the daemon takes the well-formed one" grep -q "1 sent, 0 rejected" <<<"$out"
scrape i
expect_eq "ingested rose by 1, rejected did not" "1 0" \
  "$(delta h i colltune_job_reports_ingested_total) $(delta h i colltune_job_reports_rejected_total)"
expect_eq "its 5 timed calls are counted" 5 "$(delta h i colltune_job_report_timed_calls_total)"

# --- the final scrape, the endpoint's edges, the dashboard ---
check "promtool accepts the final scrape" promtool_ok i
check "its structure still holds" python3 "$PROMTEXT" check "$T_TMP/i.prom"
check "the database size follows the file" test \
  "$(m i colltune_database_size_bytes file=main)" = "$(stat -c %s "$DB")"
code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE_URL/metrics?x=1")
expect_eq "an unknown parameter is a 400" 400 "$code"
check "the dashboard is JSON whose metrics a real scrape has, on \${DS_PROMETHEUS}" \
  python3 "$PROMTEXT" dashboard "$DASHBOARD" "$T_TMP/i.prom"
python3 "$PROMTEXT" rules "$DASHBOARD" >"$T_TMP/dashboard.rules.json"
check "promtool parses every dashboard expression (as recording rules)" \
  promtool check rules "$T_TMP/dashboard.rules.json"
# 20 scrapes while a client calls: each answers and parses.
(for _ in $(seq 20); do "${CT[@]}" table --comm-size 4 >/dev/null; done) &
load=$!
bad=0
for k in $(seq 20); do
  scrape "load$k" || bad=$((bad + 1))
done
wait "$load"
expect_eq "20 scrapes during calls all answer" 0 "$bad"
check "... each one whole" python3 "$PROMTEXT" check "$T_TMP"/load*.prom
check "the daemon is still up" kill -0 "$DAEMON_PID"
finish
