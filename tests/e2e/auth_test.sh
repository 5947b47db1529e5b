#!/usr/bin/env bash
# Authenticated uploads, for real: a private munged (tests/lib/slurm.sh), a
# second munged with another key to forge credentials, colltuned --auth
# munge on a unix socket every user can reach, job reports from a real MPI
# job under the shim (its agent `colltune flush` adds the credential),
# `colltune flush` run as nobody, campaign uploads through the benchmark's
# upload code, MUNGE administrators, TLS on TCP with a certificate made here,
# and every bad input refused with its status, stored nowhere, logged once
# per cause, the daemon unaffected. On the unix socket the kernel names the
# sender (SO_PEERCRED): jobs without munged (as root and as nobody) are
# accepted and stored with their uid, a credential of another uid than the
# connection's is refused, root administers without a token and nobody does
# not; on TCP (plain, --auth munge) a credential stays required.
#
# Args: colltuned colltune auth_probe collective_mix libcolltune.so seed_profile
source tests/lib/testlib.sh
source tests/lib/slurm.sh
args_as COLLTUNED COLLTUNE_CLI PROBE APP SHIM SEED -- "$@"
START=$SECONDS

# Everything nobody must reach lives under D (mode 755), not under T_TMP.
D=$(mktemp -d /tmp/ct.XXXX)
chmod 755 "$D"
trap '_t_cleanup; rm -rf "$D"' EXIT

# The forger's munged (another key), then the real one.
if ! start_munge "$D/forge"; then fail "the forger's munged starts"; finish; exit 1; fi
FORGE_SOCKET=$MUNGE_SOCKET
T_PIDS+=("$MUNGE_PID")
if ! start_munge "$D/real"; then fail "munged starts"; finish; exit 1; fi
T_PIDS+=("$MUNGE_PID")
REAL_SOCKET=$MUNGE_SOCKET
pass "two private munged with different keys"

check_fails "colltuned --auth munge refuses to start without munged" \
  "$COLLTUNED" --db "$D/x.db" --listen "unix:$D/x.sock" --auth munge \
  --munge-socket "$D/nothing.sock"

SOCK=$D/d.sock
SERVER=unix:$SOCK
DB=$D/auth.db
umask 0000  # the socket: every user may connect
start_daemon "$COLLTUNED" "$DB" "$SOCK" --auth munge --munge-socket "$REAL_SOCKET" \
  --max-reports-per-uid-per-minute 40 || { fail "colltuned --auth munge starts"; finish; exit 1; }
umask 0022
pass "colltuned --auth munge starts"
export COLLTUNE_AGENT=$COLLTUNE_CLI COLLTUNE_CACHE_DIR=$D/cache
export COLLTUNE_MUNGE_SOCKET=$REAL_SOCKET
probe() { "$PROBE" --server "$SERVER" --munge-socket "$REAL_SOCKET" "$@"; }
reports() { sqlite3 "$DB" "SELECT COUNT(*) FROM job_reports"; }

# --- reads stay open ---
check "reads need no credential (profiles, table)" bash -c \
  "COLLTUNE_MUNGE=0 '$COLLTUNE_CLI' --server $SERVER profiles >/dev/null &&
   COLLTUNE_MUNGE=0 '$COLLTUNE_CLI' --server $SERVER table --comm-size 2 --format shim >/dev/null"

# --- campaign uploads (the benchmark's upload code) ---
# Each launch is stored with its sender: munged's uid, else the peer's.
launch_senders() {  # CAMPAIGN: "uid|gid" of each of its launches, one a line
  sqlite3 "$DB" "SELECT COALESCE(l.uid, 'NULL') || '|' || COALESCE(l.gid, 'NULL')
    FROM campaign_launches l JOIN campaigns c ON c.id = l.campaign_id
    WHERE c.label = '$1' ORDER BY l.launch" | sort -u | tr '\n' ' '
}
check "a campaign upload with a credential is stored" \
  run_openmpi -np 2 -x COLLTUNE_MUNGE_SOCKET "$SEED" --server "$SERVER" \
  --campaign seed_munge allreduce:allreduce_as_reduce_bcast:1024
check "... its 5 launches with the credential's uid and gid (root: 0|0)" test \
  "$(launch_senders seed_munge)" = "0|0 " -a \
  "$(sqlite3 "$DB" "SELECT COUNT(*) FROM campaign_launches l JOIN campaigns c
     ON c.id = l.campaign_id WHERE c.label = 'seed_munge'")" = 5
check "a campaign upload without a credential on the unix socket is the peer's: stored" \
  run_openmpi -np 2 -x COLLTUNE_MUNGE=0 "$SEED" --server "$SERVER" \
  --campaign seed_peer allreduce:allreduce_as_reduce_bcast:4096
check "... its launches with the peer's uid and gid (SO_PEERCRED, root: 0|0)" test \
  "$(launch_senders seed_peer)" = "0|0 "

# --- a real job under the shim reports at MPI_Finalize, as Slurm job 4242 ---
job() {  # extra mpirun args before the program
  run_openmpi -np 2 -x LD_PRELOAD="$SHIM" -x COLLTUNE_AGENT -x COLLTUNE_CACHE_DIR \
    -x COLLTUNE_VERBOSE=1 "$@" "$APP" --collectives allreduce,bcast --bytes 4096 \
    --iters 300 2>&1
}
out=$(job -x COLLTUNE_SERVER="$SERVER" -x COLLTUNE_SPOOL_DIR="$D/spool" \
  -x COLLTUNE_MUNGE_SOCKET -x SLURM_JOB_ID=4242)
if grep -q "results verified" <<<"$out" && grep -q "and sent to $SERVER" <<<"$out"; then
  pass "a job under the shim runs and its agent sends the report"
else fail "a job under the shim runs and its agent sends the report" "$out"; fi
stored() { test -n "$(sqlite3 "$DB" "SELECT 1 FROM job_reports WHERE job_id = '$1'")"; }
eventually stored slurm:4242
check "the report is stored with uid 0, gid 0 and Slurm job 4242" test \
  "$(sqlite3 "$DB" "SELECT uid, gid, slurm_job_id FROM job_reports WHERE job_id = 'slurm:4242'")" = "0|0|4242"
PROFILE=$(sqlite3 "$DB" "SELECT profile_id FROM job_reports WHERE job_id = 'slurm:4242'")
check "colltune jobs --json shows the uid and the Slurm job" bash -c \
  "'$COLLTUNE_CLI' --server $SERVER jobs --profile $PROFILE --json | python3 -c '
import json, sys
r = [r for r in json.load(sys.stdin)[\"reports\"] if r[\"job_id\"] == \"slurm:4242\"][0]
sys.exit(0 if r[\"uid\"] == 0 and r[\"slurm_job_id\"] == \"4242\" else 1)'"
check "colltune jobs shows a uid column" bash -c \
  "'$COLLTUNE_CLI' --server $SERVER jobs --profile $PROFILE | grep -E 'slurm:4242 +[0-9]+ +2 +0 '"

# The same job without munged (COLLTUNE_MUNGE=0) on the unix socket: the
# kernel says who connected, the report is stored with that uid and no
# credential was needed.
out=$(job -x COLLTUNE_SERVER="$SERVER" -x COLLTUNE_SPOOL_DIR="$D/spool2" -x COLLTUNE_MUNGE=0 \
  -x SLURM_JOB_ID=4343)
if grep -q "results verified" <<<"$out" && grep -q "and sent to $SERVER" <<<"$out"; then
  pass "a job without munged sends its report over the unix socket"
else fail "a job without munged sends its report over the unix socket" "$out"; fi
eventually stored slurm:4343
check "its report is stored with root's uid and gid (SO_PEERCRED)" test \
  "$(sqlite3 "$DB" "SELECT uid, gid FROM job_reports WHERE job_id = 'slurm:4343'")" = "0|0"
# (Unless the daemon answered after MPI_Finalize stopped waiting: then the
# spool keeps it for the agent, by design.)
grep -q "(no answer within" <<<"$out" ||
  check "nothing of it waits in the spool" test "$(ls "$D/spool2"/*.report 2>/dev/null | wc -l)" = 0

# --- bad input: each refused with its status, nothing stored ---
before=$(reports)
expect() {  # NAME EXPECTED-OUTPUT-REGEX PROBE-ARGS...
  local name=$1 want=$2 got
  shift 2
  got=$(probe "$@" 2>&1)
  if grep -Eq "$want" <<<"$got"; then pass "$name"; else fail "$name" "wanted /$want/, got: $got"; fi
}
expect "no credential on the unix socket: the peer's report, accepted" "^OK" \
  --job peer-1 --no-credential
check "... and stored with uid 0" test \
  "$(sqlite3 "$DB" "SELECT uid FROM job_reports WHERE job_id = 'peer-1'")" = 0
got=$("$PROBE" --server "$SERVER" --munge-socket "$FORGE_SOCKET" --job bad-2 2>&1)
if grep -Eq "^UNAUTHENTICATED: .*Invalid credential" <<<"$got"; then
  pass "a credential forged with another munged's key: UNAUTHENTICATED"
else fail "a credential forged with another munged's key: UNAUTHENTICATED" "$got"; fi
expect "an expired credential (TTL 1 s, sent after 2.2 s): UNAUTHENTICATED" \
  "^UNAUTHENTICATED: .*Expired credential" --job bad-3 --ttl 1 --sleep 2.2
expect "a fresh credential is accepted" "^OK" --job good-1 --save-credential "$D/cred"
expect "the same credential replayed: UNAUTHENTICATED (munged: replayed)" \
  "^UNAUTHENTICATED: .*Replayed credential" --job good-1 --use-credential "$D/cred"
expect "that credential on another request: refused (munged sees the replay first)" \
  "^UNAUTHENTICATED: .*Replayed credential" --job good-1 --run other --use-credential "$D/cred"
expect "credential binds comm size 8, the report says 2: PERMISSION_DENIED" \
  "^PERMISSION_DENIED: .*comm_size '8', the request has '2'" --job bad-4 --bind-comm-size 8
expect "credential binds MPICH, the report says Open MPI: PERMISSION_DENIED" \
  "^PERMISSION_DENIED: .*library 'MPICH'" --job bad-5 --bind-library MPICH
expect "a campaign upload bound to another comm size: PERMISSION_DENIED" \
  "^PERMISSION_DENIED: " --upload --job bad-camp --bind-comm-size 64
expect "an oversized credential (6000 bytes): INVALID_ARGUMENT" \
  "^INVALID_ARGUMENT: .*6006 bytes" --job bad-6 --junk-credential 6000
expect "an oversized request (17 MB): RESOURCE_EXHAUSTED" "^RESOURCE_EXHAUSTED" \
  --job bad-7 --pad-bytes 17000000
expect "a well-credentialed but invalid report: INVALID_ARGUMENT" "^INVALID_ARGUMENT: .*run_id" \
  --job bad-8 --pad-bytes 300
check "none of the bad inputs was stored (two good probes were)" test "$(reports)" = "$((before + 2))"
check "no bad job id reached the database" test \
  "$(sqlite3 "$DB" "SELECT COUNT(*) FROM job_reports WHERE job_id LIKE 'bad-%'")" = 0
check "the replay was logged with its cause" grep -q "refused (replayed credential)" "$T_TMP/daemon.log"

# --- a flood from one uid (root): 40 per minute, then RESOURCE_EXHAUSTED ---
out=$(probe --job flood --count 60 2>&1)
ok=$(grep -o 'OK=[0-9]*' <<<"$out" | cut -d= -f2)
if grep -q "RESOURCE_EXHAUSTED: uid 0 sent more than 40 job reports" <<<"$out" && [ "${ok:-0}" -le 40 ]; then
  pass "a flood of 60 reports from uid 0 is cut at the rate ($ok taken)"
else fail "a flood from one uid is cut at the rate" "$out"; fi
# (the bucket refills one report per 1.5 s: of 5 sent at once, most are cut)
expect "... and so are root's reports without a credential: the peer's uid, the same bucket" \
  "^RESOURCE_EXHAUSTED: uid 0 sent more than 40" --job flood-peer --no-credential --count 5
check "the daemon is unaffected: reads answer" "$COLLTUNE_CLI" --server "$SERVER" profiles
check "the daemon is still running" kill -0 "$DAEMON_PID"

# --- another uid: nobody, through the real colltune ---
mkdir -p "$D/bin" "$D/spool-nobody"
cp "$COLLTUNE_CLI" "$D/bin/colltune"
cp "$PROBE" "$D/bin/auth_probe"
cp "$APP" "$D/bin/collective_mix"
cp "$SHIM" "$D/bin/libcolltune.so"
chmod 755 "$D/bin" "$D/bin/"*
out=$(job -x COLLTUNE_SPOOL_DIR="$D/spool3")  # no daemon: the report stays spooled
f=$(ls "$D/spool3"/*.report 2>/dev/null | head -1)
if [ -n "$f" ]; then
  sed 's/^job .*/job slurm:5151/' "$f" >"$D/spool-nobody/nobody.report"
  pass "a spooled report for nobody to send"
else fail "a spooled report for nobody to send" "$out"; fi
chown -R nobody "$D/spool-nobody"
check "nobody's colltune flush is accepted while root is rate-limited" \
  runuser -u nobody -- env COLLTUNE_MUNGE_SOCKET="$REAL_SOCKET" "$D/bin/colltune" \
  --server "$SERVER" flush --spool-dir "$D/spool-nobody"
check "the report is stored with nobody's uid and Slurm job 5151" test \
  "$(sqlite3 "$DB" "SELECT uid, slurm_job_id FROM job_reports WHERE job_id = 'slurm:5151'")" = "$(id -u nobody)|5151"

# A real job under the shim run by nobody, without munged: the report is
# stored with nobody's uid, which only the kernel vouched for.
mkdir -p "$D/nobody/home" "$D/nobody/tmp" "$D/nobody/cache"
chown -R nobody "$D/nobody"
out=$(runuser -u nobody -- env HOME="$D/nobody/home" TMPDIR="$D/nobody/tmp" \
  OMPI_MCA_rmaps_base_oversubscribe=1 COLLTUNE_MUNGE=0 COLLTUNE_AGENT="$D/bin/colltune" \
  COLLTUNE_CACHE_DIR="$D/nobody/cache" timeout -k 5 "$MPI_TIMEOUT" mpirun.openmpi -np 2 \
  -x LD_PRELOAD="$D/bin/libcolltune.so" -x COLLTUNE_AGENT -x COLLTUNE_CACHE_DIR \
  -x COLLTUNE_MUNGE -x COLLTUNE_SERVER="$SERVER" -x COLLTUNE_VERBOSE=1 -x SLURM_JOB_ID=6161 \
  "$D/bin/collective_mix" --collectives allreduce,bcast --bytes 4096 --iters 300 2>&1 </dev/null)
if grep -q "results verified" <<<"$out" && grep -q "and sent to $SERVER" <<<"$out"; then
  pass "nobody's job without munged sends its report over the unix socket"
else fail "nobody's job without munged sends its report over the unix socket" "$out"; fi
check "it is stored with nobody's uid and gid ($(id -u nobody)|$(id -g nobody))" test \
  "$(sqlite3 "$DB" "SELECT uid, gid FROM job_reports WHERE job_id = 'slurm:6161'")" = \
  "$(id -u nobody)|$(id -g nobody)"
check "colltune jobs lists it under nobody's uid" bash -c \
  "'$COLLTUNE_CLI' --server $SERVER jobs --profile $PROFILE | grep -E 'slurm:6161 +[0-9]+ +2 +$(id -u nobody) '"

# Campaign uploads by nobody: with munged, the credential's uid; without,
# the unix socket's peer. Both are nobody's, stored per launch and listed.
cp "$SEED" "$D/bin/seed_profile"
chmod 755 "$D/bin/seed_profile"
seed_as_nobody() {  # CAMPAIGN ENV...
  local campaign=$1
  shift
  runuser -u nobody -- env HOME="$D/nobody/home" TMPDIR="$D/nobody/tmp" \
    OMPI_MCA_rmaps_base_oversubscribe=1 "$@" timeout -k 5 "$MPI_TIMEOUT" \
    mpirun.openmpi -np 2 -x COLLTUNE_MUNGE -x COLLTUNE_MUNGE_SOCKET \
    "$D/bin/seed_profile" --server "$SERVER" --campaign "$campaign" \
    allreduce:allreduce_as_reduce_bcast:1024 </dev/null
}
NOBODY_IDS="$(id -u nobody)|$(id -g nobody)"
check "nobody's campaign upload with a MUNGE credential is stored" \
  seed_as_nobody nobody_munge COLLTUNE_MUNGE=1 COLLTUNE_MUNGE_SOCKET="$REAL_SOCKET"
check "... with the credential's uid and gid ($NOBODY_IDS)" test \
  "$(launch_senders nobody_munge)" = "$NOBODY_IDS "
check "nobody's campaign upload without munged on the unix socket is stored" \
  seed_as_nobody nobody_peer COLLTUNE_MUNGE=0 COLLTUNE_MUNGE_SOCKET=/nonexistent
check "... with the peer's uid and gid ($NOBODY_IDS)" test \
  "$(launch_senders nobody_peer)" = "$NOBODY_IDS "
SEED_PROFILE=$(sqlite3 "$DB" "SELECT profile_id FROM campaigns WHERE label = 'nobody_peer'")
check "colltune profile lists each campaign launch with its uploader's uid" bash -c \
  "'$COLLTUNE_CLI' --server $SERVER profile ${SEED_PROFILE:-0} >$D/profile.txt &&
   grep -Eq '^seed_munge +0 .* 0 +campaign\$' $D/profile.txt &&
   grep -Eq '^nobody_peer +4 .* $(id -u nobody) +campaign\$' $D/profile.txt"
check "colltune profile --json gives each launch's uid and gid" bash -c \
  "'$COLLTUNE_CLI' --server $SERVER profile ${SEED_PROFILE:-0} --json | python3 -c '
import json, sys
l = {(x[\"campaign\"], x[\"launch\"]): (x[\"uid\"], x[\"gid\"]) for x in json.load(sys.stdin)[\"campaign_launches\"]}
assert l[(\"seed_munge\", 0)] == (0, 0), l
assert l[(\"nobody_munge\", 2)] == ($(id -u nobody), $(id -g nobody)), l
assert l[(\"nobody_peer\", 4)] == ($(id -u nobody), $(id -g nobody)), l'"

# A MUNGE credential is still checked on the socket, against the peer: one
# root made, sent by nobody (given away or stolen before its first use).
probe --job stolen-1 --credential-only --save-credential "$D/root.cred"
chmod 644 "$D/root.cred"
got=$(runuser -u nobody -- "$D/bin/auth_probe" --server "$SERVER" --job stolen-1 \
  --use-credential "$D/root.cred" 2>&1)
if grep -Eq "^PERMISSION_DENIED: the MUNGE credential is uid 0's, but uid $(id -u nobody) sent it" <<<"$got"; then
  pass "root's credential sent by nobody: PERMISSION_DENIED (munged's uid is not the peer's)"
else fail "root's credential sent by nobody: PERMISSION_DENIED" "$got"; fi
check "... and not stored" test \
  "$(sqlite3 "$DB" "SELECT COUNT(*) FROM job_reports WHERE job_id = 'stolen-1'")" = 0
got=$(runuser -u nobody -- "$D/bin/auth_probe" --server "$SERVER" \
  --munge-socket "$FORGE_SOCKET" --job forged-nobody 2>&1)
if grep -Eq "^UNAUTHENTICATED: .*Invalid credential" <<<"$got"; then
  pass "a forged credential from nobody on the unix socket: UNAUTHENTICATED (not the peer's)"
else fail "a forged credential from nobody on the unix socket: UNAUTHENTICATED" "$got"; fi

# --- administrators through MUNGE (no token file) ---
out=$(runuser -u nobody -- env COLLTUNE_MUNGE_SOCKET="$REAL_SOCKET" "$D/bin/colltune" \
  --server "$SERVER" pin --profile "$PROFILE" --collective bcast --algorithm default 2>&1)
if [ $? -ne 0 ] && grep -q "PERMISSION_DENIED\|not an administrator" <<<"$out"; then
  pass "nobody's MUNGE credential may not pin (PERMISSION_DENIED)"
else fail "nobody's MUNGE credential may not pin" "$out"; fi
out=$("$COLLTUNE_CLI" --server "$SERVER" pin --profile "$PROFILE" --collective bcast \
  --algorithm default 2>&1)
if [ $? -eq 0 ]; then pass "root's MUNGE credential pins without a token"
else fail "root's MUNGE credential pins without a token" "$out"; fi
pin=$(sed -n 's/^pin \([0-9]*\):.*/\1/p' <<<"$out")
check "and unpins" "$COLLTUNE_CLI" --server "$SERVER" unpin --profile "$PROFILE" --pin "${pin:-0}"
# Without munged either: the unix socket's peer.
out=$(runuser -u nobody -- env COLLTUNE_MUNGE=0 "$D/bin/colltune" \
  --server "$SERVER" pin --profile "$PROFILE" --collective bcast --algorithm default 2>&1)
if [ $? -ne 0 ] && grep -q "uid $(id -u nobody) is not an administrator" <<<"$out"; then
  pass "nobody without token or munged may not pin (the peer is not an administrator)"
else fail "nobody without token or munged may not pin" "$out"; fi
out=$(COLLTUNE_MUNGE=0 "$COLLTUNE_CLI" --server "$SERVER" pin --profile "$PROFILE" \
  --collective bcast --algorithm default 2>&1)
if [ $? -eq 0 ]; then pass "root without token or munged pins over the unix socket (SO_PEERCRED)"
else fail "root without token or munged pins over the unix socket" "$out"; fi
pin=$(sed -n 's/^pin \([0-9]*\):.*/\1/p' <<<"$out")
check "and unpins" env COLLTUNE_MUNGE=0 "$COLLTUNE_CLI" --server "$SERVER" unpin \
  --profile "$PROFILE" --pin "${pin:-0}"
stop_daemon

# --- --admin-group: members administer ---
umask 0000
start_daemon "$COLLTUNED" "$DB" "$SOCK" --auth munge --munge-socket "$REAL_SOCKET" \
  --admin-group nogroup || fail "colltuned --admin-group nogroup starts"
umask 0022
out=$(runuser -u nobody -- env COLLTUNE_MUNGE_SOCKET="$REAL_SOCKET" "$D/bin/colltune" \
  --server "$SERVER" pin --profile "$PROFILE" --collective bcast --algorithm default 2>&1)
if [ $? -eq 0 ]; then pass "with --admin-group nogroup, nobody may pin through MUNGE"
else fail "with --admin-group nogroup, nobody may pin through MUNGE" "$out"; fi
out=$(runuser -u nobody -- env COLLTUNE_MUNGE=0 "$D/bin/colltune" --server "$SERVER" \
  pin --profile "$PROFILE" --collective allreduce --algorithm default 2>&1)
if [ $? -eq 0 ]; then pass "... and without munged, as the unix socket's peer (gid nogroup)"
else fail "... and without munged, as the unix socket's peer (gid nogroup)" "$out"; fi
stop_daemon

# --- --auth none on the unix socket: peers recorded, admin still by token ---
umask 0000
start_daemon "$COLLTUNED" "$D/none.db" "$SOCK" || fail "colltuned --auth none starts"
umask 0022
check "--auth none: a report on the unix socket is accepted" probe --job none-1 --no-credential
check "... and stored with the peer's uid and gid" test \
  "$(sqlite3 "$D/none.db" "SELECT uid, gid FROM job_reports WHERE job_id = 'none-1'")" = "0|0"
NONE_PROFILE=$(sqlite3 "$D/none.db" "SELECT profile_id FROM job_reports WHERE job_id = 'none-1'")
stop_daemon

# --- rate limits hold under --auth none too (per peer uid) ---
umask 0000
start_daemon "$COLLTUNED" "$D/none.db" "$SOCK" --max-reports-per-uid-per-minute 3 \
  --max-uploads-per-uid-per-minute 2 || fail "colltuned --auth none with rate limits starts"
umask 0022
got=$(probe --job rate-r --no-credential --count 5 2>&1)
if grep -q "^summary OK=3 RESOURCE_EXHAUSTED=2" <<<"$got" &&
   grep -q "uid 0 sent more than 3 job reports in a minute" <<<"$got"; then
  pass "--auth none: --max-reports-per-uid-per-minute 3 lets 3 of 5 reports of one uid in"
else fail "--auth none: --max-reports-per-uid-per-minute 3 lets 3 of 5 reports of one uid in" "$got"; fi
# The probe's uploads carry no measurements: past the rate limit the tuner
# answers FAILED_PRECONDITION (nothing of that campaign is stored).
got=$(probe --job rate-u --no-credential --upload --count 4 2>&1)
if grep -q "^summary FAILED_PRECONDITION=2 RESOURCE_EXHAUSTED=2" <<<"$got" &&
   grep -q "uid 0 sent more than 2 uploads in a minute (colltuned --max-uploads-per-uid-per-minute)" <<<"$got"; then
  pass "--auth none: --max-uploads-per-uid-per-minute 2 lets 2 of 4 campaign uploads of one uid in"
else fail "--auth none: --max-uploads-per-uid-per-minute 2 lets 2 of 4 campaign uploads of one uid in" "$got"; fi
check "... and says so in the log" grep -q "upload rate of a uid" "$T_TMP/daemon.log"
stop_daemon
umask 0000
start_daemon "$COLLTUNED" "$D/none.db" "$SOCK" || fail "colltuned --auth none starts again"
umask 0022
out=$(COLLTUNE_MUNGE=0 "$COLLTUNE_CLI" --server "$SERVER" pin --profile "${NONE_PROFILE:-1}" \
  --collective bcast --algorithm default 2>&1)
if [ $? -ne 0 ] && grep -q "admin token" <<<"$out"; then
  pass "--auth none: root without the token may not pin (identity admin is --auth munge's)"
else fail "--auth none: root without the token may not pin" "$out"; fi
stop_daemon

# --- plain TCP with --auth munge: no peer credentials, MUNGE required ---
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
TCP=127.0.0.1:$PORT
"$COLLTUNED" --db "$D/tcp.db" --listen "$TCP" --auth munge --munge-socket "$REAL_SOCKET" \
  >"$D/tcp.log" 2>&1 &
TCP_PID=$!
T_PIDS+=("$TCP_PID")
for i in $(seq 1 100); do
  "$COLLTUNE_CLI" --server "$TCP" --timeout-ms 500 profiles >/dev/null 2>&1 && break
  sleep 0.1
done
tcp_reports() { sqlite3 "$D/tcp.db" "SELECT COUNT(*) FROM job_reports"; }
got=$("$PROBE" --server "$TCP" --munge-socket "$REAL_SOCKET" --job tcp-1 2>&1)
if grep -q "^OK" <<<"$got" && \
   [ "$(sqlite3 "$D/tcp.db" "SELECT uid FROM job_reports WHERE job_id = 'tcp-1'")" = 0 ]; then
  pass "on TCP, an upload with a credential is stored with uid 0"
else fail "on TCP, an upload with a credential is stored with uid 0" "$got"; fi
got=$("$PROBE" --server "$TCP" --job tcp-bad-1 --no-credential 2>&1)
if grep -Eq "^UNAUTHENTICATED: .*requires a MUNGE credential" <<<"$got"; then
  pass "on TCP, no credential: UNAUTHENTICATED"
else fail "on TCP, no credential: UNAUTHENTICATED" "$got"; fi
out=$(run_openmpi -np 2 -x COLLTUNE_MUNGE=0 "$SEED" --server "$TCP" \
  allreduce:allreduce_as_reduce_bcast:4096 2>&1)
if [ $? -ne 0 ] && grep -q "MUNGE credential" <<<"$out"; then
  pass "on TCP, a campaign upload without a credential is refused (UNAUTHENTICATED)"
else fail "on TCP, a campaign upload without a credential is refused" "$out"; fi
# A job with no credential: the job is unharmed, the report waits.
before=$(tcp_reports)
out=$(job -x COLLTUNE_SERVER="$TCP" -x COLLTUNE_SPOOL_DIR="$D/spool4" -x COLLTUNE_MUNGE=0)
check "on TCP, a job whose agent has no credential still runs and verifies" grep -q "results verified" <<<"$out"
check "its report is not stored" test "$(tcp_reports)" = "$before"
check "its report stays in the spool" test "$(ls "$D/spool4"/*.report 2>/dev/null | wc -l)" = 1
check "colltune flush with munged sends it later" \
  "$COLLTUNE_CLI" --server "$TCP" flush --spool-dir "$D/spool4"
check "now it is stored" test "$(tcp_reports)" = "$((before + 1))"
got=$("$PROBE" --server "$TCP" --job tcp-bad-2 --no-credential --count 5 2>&1)
if grep -q "summary UNAUTHENTICATED=5" <<<"$got"; then
  pass "5 more uploads without a credential: all UNAUTHENTICATED"
else fail "5 more uploads without a credential: all UNAUTHENTICATED" "$got"; fi
check "refusals are logged once per cause per minute" test \
  "$(grep -c 'ReportJob refused (no credential)' "$D/tcp.log")" = 1
out=$(COLLTUNE_MUNGE=0 "$COLLTUNE_CLI" --server "$TCP" pin --profile 1 --collective bcast \
  --algorithm default 2>&1)
if [ $? -ne 0 ] && grep -q "admin token" <<<"$out"; then
  pass "on TCP, root without token or credential may not pin (no peer identity)"
else fail "on TCP, root without token or credential may not pin" "$out"; fi
kill "$TCP_PID"; wait "$TCP_PID" 2>/dev/null

# --- TLS on TCP, with a self-signed certificate made here ---
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$D/key.pem" -out "$D/cert.pem" \
  -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost >/dev/null 2>&1
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$COLLTUNED" --db "$D/tls.db" --listen "127.0.0.1:$PORT" --auth munge \
  --munge-socket "$REAL_SOCKET" --tls-cert "$D/cert.pem" --tls-key "$D/key.pem" \
  >"$D/tls.log" 2>&1 &
TLS_PID=$!
T_PIDS+=("$TLS_PID")
for i in $(seq 1 100); do
  "$COLLTUNE_CLI" --server "localhost:$PORT" --tls-ca "$D/cert.pem" --timeout-ms 500 \
    profiles >/dev/null 2>&1 && break
  sleep 0.1
done
check "over TLS with --tls-ca the daemon answers" \
  "$COLLTUNE_CLI" --server "localhost:$PORT" --tls-ca "$D/cert.pem" profiles
check_fails "plaintext to the TLS listener fails" \
  "$COLLTUNE_CLI" --server "localhost:$PORT" --timeout-ms 2000 profiles
check "an authenticated upload over TLS is stored" env COLLTUNE_TLS_CA="$D/cert.pem" \
  "$PROBE" --server "localhost:$PORT" --munge-socket "$REAL_SOCKET" --job tls-1
check "the daemon logs TLS" grep -q "(TLS)" "$D/tls.log"
kill "$TLS_PID"; wait "$TLS_PID" 2>/dev/null

# --- TCP without auth: uploads refused unless accepted by a loud flag ---
open_reports() { sqlite3 "$D/$1" "SELECT COUNT(*) FROM job_reports"; }
open_launches() { sqlite3 "$D/$1" "SELECT COUNT(*) FROM campaign_launches"; }
"$COLLTUNED" --db "$D/open.db" --listen "127.0.0.1:$PORT" >"$D/open.log" 2>&1 &
OPEN_PID=$!
T_PIDS+=("$OPEN_PID")
for i in $(seq 1 50); do grep -q "listening" "$D/open.log" && break; sleep 0.1; done
check "colltuned on TCP with --auth none says it refuses uploads" \
  grep -q "refuses job reports and campaign uploads" "$D/open.log"
check_fails "... and does not warn of accepting them" grep -q "WARNING" "$D/open.log"
got=$("$PROBE" --server "127.0.0.1:$PORT" --job open-1 --no-credential 2>&1)
if grep -Eq "^UNAUTHENTICATED: .*refuses job reports whose sender nobody vouches for.*--insecure-accept-anonymous-uploads" <<<"$got"; then
  pass "a fresh colltuned on TCP refuses an anonymous job report and says why"
else fail "a fresh colltuned on TCP refuses an anonymous job report and says why" "$got"; fi
got=$("$PROBE" --server "127.0.0.1:$PORT" --job open-2 --no-credential --upload 2>&1)
if grep -Eq "^UNAUTHENTICATED: .*refuses campaign uploads whose sender nobody vouches for" <<<"$got"; then
  pass "... and an anonymous campaign upload"
else fail "... and an anonymous campaign upload" "$got"; fi
check "... stores nothing from them" test "$(open_reports open.db)/$(open_launches open.db)" = "0/0"
check "... and logs the refusal" grep -q "anonymous upload" "$D/open.log"
check "... while tables are still served" "$COLLTUNE_CLI" --server "127.0.0.1:$PORT" profiles
kill "$OPEN_PID"; wait "$OPEN_PID" 2>/dev/null

"$COLLTUNED" --db "$D/anon.db" --listen "127.0.0.1:$PORT" --insecure-accept-anonymous-uploads \
  --max-reports-per-uid-per-minute 2 >"$D/anon.log" 2>&1 &
OPEN_PID=$!
T_PIDS+=("$OPEN_PID")
for i in $(seq 1 50); do grep -q "listening" "$D/anon.log" && break; sleep 0.1; done
check "with --insecure-accept-anonymous-uploads colltuned warns loudly" \
  grep -q "WARNING: colltuned listens on TCP .*--insecure-accept-anonymous-uploads" "$D/anon.log"
got=$("$PROBE" --server "127.0.0.1:$PORT" --job anon-1 --no-credential 2>&1)
if grep -q "^OK" <<<"$got" &&
   [ "$(sqlite3 "$D/anon.db" "SELECT COALESCE(uid, -1) FROM job_reports WHERE job_id = 'anon-1'")" = -1 ]; then
  pass "... and stores an anonymous report with no uid"
else fail "... and stores an anonymous report with no uid" "$got"; fi
got=$("$PROBE" --server "127.0.0.1:$PORT" --job anon-2 --no-credential --count 3 2>&1)
if grep -q "^summary OK=1 RESOURCE_EXHAUSTED=2" <<<"$got" &&
   grep -q "anonymous senders sent more than 2 job reports in a minute" <<<"$got"; then
  pass "anonymous senders share one rate budget (--max-reports-per-uid-per-minute 2)"
else fail "anonymous senders share one rate budget (--max-reports-per-uid-per-minute 2)" "$got"; fi
kill "$OPEN_PID"; wait "$OPEN_PID" 2>/dev/null

echo "auth_test took $((SECONDS - START)) s"
finish
