#!/usr/bin/env bash
# Faults under a real colltuned and a real SQLite file:
#  1. kill -9 during heavy ingest: every upload the daemon acknowledged is in
#     the database after a restart, the file is intact, and re-sending what
#     was not acknowledged stores each job exactly once;
#  2. a full disk (the database on a small tmpfs): uploads get a clear error
#     and stay in the spool, the daemon keeps running and serving reads,
#     uploads work again once there is space;
#  3. a read-only database (the tmpfs remounted read-only: root can write
#     any file with any mode, not on a read-only mount): reads are served,
#     writes refused with a clear error; a read-only file whose WAL still
#     holds commits is refused rather than served without them;
#  4. a corrupted file (garbage over the header, or over pages): colltuned
#     refuses to start, names the file and how to recover, serves nothing.
# Needs root (mount). Args: colltuned colltune
source tests/lib/testlib.sh
args_as COLLTUNED COLLTUNE_CLI -- "$@"
SOCK="$T_TMP/d.sock"
SERVER="unix:$SOCK"
CT=("$COLLTUNE_CLI" --server "$SERVER")
START=$SECONDS

MNT="$T_TMP/mnt"
mkdir -p "$MNT"
cleanup_mount() {
  # The daemon on the mount first, or the unmount is busy.
  kill -9 "${DAEMON_PID:-0}" 2>/dev/null
  wait "${DAEMON_PID:-0}" 2>/dev/null
  mountpoint -q "$MNT" && umount -l "$MNT"
  _t_cleanup
}
trap cleanup_mount EXIT

if [ "$(id -u)" != 0 ]; then
  fail "runs as root (mounts a tmpfs)" "uid $(id -u)"
  finish; exit 1
fi

# report DIR JOB: one well-formed spooled report (4 processes, Open MPI),
# timings for two collectives.
report() {
  {
    printf 'colltune-report 1\njob %s\nrun %s-1\nlibrary Open MPI\nlibrary_version 4.1.4\n' "$2" "$2"
    printf 'comm_size 4\nnodes 1\nppn 4\ntable_version 0\nfinal 1\nranks 4\n'
    echo "timing 4 0 scatter default 17 1000 5 0 700000 120 1 5"
    echo "timing 4 0 bcast default 15 2000 5 0 350000 112 1 5"
    echo end
  } >"$1/$2.report"
}
# upload JOB: one report through its own `colltune flush`; exit 0 = acked.
upload() {
  local d="$T_TMP/one.$BASHPID"
  mkdir -p "$d"
  report "$d" "$1"
  "${CT[@]}" --timeout-ms 5000 flush --spool-dir "$d" >"$d.out" 2>&1
}
db_jobs() { sqlite3 "$1" "SELECT job_id FROM job_reports ORDER BY job_id"; }
reports() {  # job reports the daemon serves, over all profiles
  "${CT[@]}" profiles --json |
    python3 -c 'import json,sys; print(sum(p["job_reports"] for p in json.load(sys.stdin)))'
}

# --- 1. kill -9 during heavy ingest --------------------------------------
DB="$T_TMP/kill.db"
# One uid sends all of it: no rate limit here (auth_test tests the limits).
UNLIMITED=(--max-reports-per-uid-per-minute 0 --max-uploads-per-uid-per-minute 0)
start_daemon "$COLLTUNED" "$DB" "$SOCK" "${UNLIMITED[@]}" || { fail "colltuned starts" "$(cat "$T_TMP/daemon.log")"; finish; exit 1; }
# Three workers upload one report per `colltune flush` and note each acked
# job (exit 0); two more flush a spool of 300 reports each, where a report
# is deleted only once acknowledged.
LOOPS=3 PER_LOOP=200 BULK=2 PER_BULK=300
for w in $(seq 1 "$BULK"); do
  mkdir -p "$T_TMP/bulk$w"
  for i in $(seq 1 "$PER_BULK"); do report "$T_TMP/bulk$w" "bulk$w-$i"; done
done
workers=()
for w in $(seq 1 "$LOOPS"); do
  (
    for i in $(seq 1 "$PER_LOOP"); do
      if upload "loop$w-$i"; then echo "loop$w-$i" >>"$T_TMP/acked.$w"; else break; fi
    done
  ) &
  workers+=($!)
done
for w in $(seq 1 "$BULK"); do
  "${CT[@]}" --timeout-ms 5000 flush --spool-dir "$T_TMP/bulk$w" >"$T_TMP/bulk$w.out" 2>&1 &
  workers+=($!)
done
# Kill once a good share is in, mid-way through.
for _ in $(seq 200); do
  n=$(sqlite3 "$DB" "SELECT COUNT(*) FROM job_reports" 2>/dev/null || echo 0)
  [ "${n:-0}" -ge 250 ] && break
  sleep 0.05
done
kill -9 "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
wait "${workers[@]}"
for w in $(seq 1 "$BULK"); do
  for i in $(seq 1 "$PER_BULK"); do
    [ -e "$T_TMP/bulk$w/bulk$w-$i.report" ] || echo "bulk$w-$i"
  done
done >"$T_TMP/acked.bulk"
sort -u "$T_TMP"/acked.* >"$T_TMP/acked"
acked=$(wc -l <"$T_TMP/acked")
total=$((LOOPS * PER_LOOP + BULK * PER_BULK))
echo "killed with $acked of $total uploads acknowledged"
check "the kill came mid-way (some uploads acknowledged, some not)" \
  test "$acked" -gt 0 -a "$acked" -lt "$total"
if start_daemon "$COLLTUNED" "$DB" "$SOCK" "${UNLIMITED[@]}"; then
  pass "colltuned restarts on the database it was killed over"
else
  fail "colltuned restarts on the database it was killed over" "$(tail -5 "$T_TMP/daemon.log")"
fi
db_jobs "$DB" >"$T_TMP/stored"
missing=$(comm -23 "$T_TMP/acked" "$T_TMP/stored")
stored=$(wc -l <"$T_TMP/stored")
echo "stored after restart: $stored (acknowledged $acked)"
check "every acknowledged upload is stored ($acked)" test -z "$missing"
check "at most the uploads in flight are stored unacknowledged" \
  test "$stored" -le $((acked + LOOPS + BULK))
check "the file passes integrity_check" test "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok
check "the daemon serves what is stored" test "$(reports)" -eq "$stored"
# What was not acknowledged is sent again; nothing is stored twice.
for w in $(seq 1 "$LOOPS"); do
  for i in $(seq 1 "$PER_LOOP"); do
    grep -qx "loop$w-$i" "$T_TMP/acked" || report "$T_TMP/bulk1" "loop$w-$i"
  done
done
check "the rest is sent after the restart" "${CT[@]}" flush --spool-dir "$T_TMP/bulk1"
check "the rest is sent after the restart (2)" "${CT[@]}" flush --spool-dir "$T_TMP/bulk2"
check "every job is stored once ($total)" test \
  "$(sqlite3 "$DB" 'SELECT COUNT(*), COUNT(DISTINCT job_id) FROM job_reports')" = "$total|$total"
stop_daemon
check "no error in the daemon's log" bash -c '! grep -E "\] \[(error|critical)\]" "$1"' _ "$T_TMP/daemon.log"
cp "$DB" "$T_TMP/good.db"

# --- 2. disk full ----------------------------------------------------------
mount -t tmpfs -o size=3m colltune-faults "$MNT"
DB="$MNT/colltune.db"
start_daemon "$COLLTUNED" "$DB" "$SOCK" || fail "colltuned starts on the tmpfs" "$(tail -5 "$T_TMP/daemon.log")"
mkdir -p "$T_TMP/full"
for i in $(seq 1 20); do report "$T_TMP/full" "full-$i"; done
check "20 uploads with space" "${CT[@]}" flush --spool-dir "$T_TMP/full"
dd if=/dev/zero of="$MNT/filler" bs=64k >/dev/null 2>&1
echo "free on the tmpfs: $(df -k --output=avail "$MNT" | tail -1) KiB"
for i in $(seq 1 5); do report "$T_TMP/full" "more-$i"; done
out=$("${CT[@]}" flush --spool-dir "$T_TMP/full" 2>&1)
rc=$?
echo "$out" | head -3
check "uploads to a full disk fail (exit $rc)" test "$rc" -ne 0
check "with a clear error" grep -q "database or disk is full" <<<"$out"
check "and stay in the spool" test "$(ls "$T_TMP/full" | grep -c '\.report$')" -eq 5
check "the daemon is still running" kill -0 "$DAEMON_PID"
check "reads work: colltune profiles shows the 20 acknowledged" test "$(reports)" -eq 20
check "reads work: colltune table" "${CT[@]}" table --comm-size 4
check "reads work: colltune jobs" "${CT[@]}" jobs --profile 1
rm -f "$MNT/filler"
check "space freed: the kept uploads are sent" grep -q "5 sent, 0 rejected, 0 kept" \
  <<<"$("${CT[@]}" flush --spool-dir "$T_TMP/full" 2>&1)"
check "all 25 are served" test "$(reports)" -eq 25
stop_daemon
check "the file is intact after the full disk" test "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok

# --- 3. read-only ------------------------------------------------------------
mount -o remount,ro "$MNT"
check "writes are impossible for root too" bash -c '! touch "$1" 2>/dev/null' _ "$MNT/x"
if start_daemon "$COLLTUNED" "$DB" "$SOCK"; then
  pass "colltuned starts on a read-only database"
else
  fail "colltuned starts on a read-only database" "$(tail -5 "$T_TMP/daemon.log")"
fi
check "and says so in its log" grep -q "cannot be written (read-only file system)" "$T_TMP/daemon.log"
check "reads work: profiles" test "$(reports)" -eq 25
check "reads work: table" "${CT[@]}" table --comm-size 4
report "$T_TMP/full" "ro-1"
out=$("${CT[@]}" flush --spool-dir "$T_TMP/full" 2>&1)
rc=$?
echo "$out" | head -2
check "an upload fails (exit $rc)" test "$rc" -ne 0
check "with a clear error" grep -q "is read-only" <<<"$out"
check "and stays in the spool" test -e "$T_TMP/full/ro-1.report"
check "the daemon is still running" kill -0 "$DAEMON_PID"
stop_daemon
# A crash leaves commits in the WAL; read-only, they could not be recovered.
mount -o remount,rw "$MNT"
start_daemon "$COLLTUNED" "$DB" "$SOCK" || fail "colltuned starts read-write again" "$(tail -5 "$T_TMP/daemon.log")"
check "writable again: the kept upload is sent" "${CT[@]}" flush --spool-dir "$T_TMP/full"
kill -9 "$DAEMON_PID"; wait "$DAEMON_PID" 2>/dev/null
check "the kill left a WAL with commits" test -s "$DB-wal"
mount -o remount,ro "$MNT"
out=$(timeout 10 "$COLLTUNED" --db "$DB" --listen "$SERVER" 2>&1)
rc=$?
check "read-only with commits in the WAL: refused (exit $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
check "naming the log and what to do" grep -q "$DB-wal holds commits not yet in it: make it writable" <<<"$out"
mount -o remount,rw "$MNT"
start_daemon "$COLLTUNED" "$DB" "$SOCK" || fail "colltuned recovers it once writable" "$(tail -5 "$T_TMP/daemon.log")"
check "nothing was lost (26 reports)" test "$(reports)" -eq 26
stop_daemon
umount "$MNT"

# --- 4. corrupted files --------------------------------------------------------
# corrupt NAME DD-ARGS...: a copy of the database of part 1 with garbage
# written over it; colltuned must refuse it.
corrupt() {
  local name=$1 f="$T_TMP/$1.db"
  shift
  cp "$T_TMP/good.db" "$f"
  dd if=/dev/urandom of="$f" conv=notrunc "$@" 2>/dev/null
  out=$(timeout 10 "$COLLTUNED" --db "$f" --listen "$SERVER" 2>&1)
  rc=$?
  echo "$out" | tail -1
  check "$name: colltuned refuses to start (exit $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
  check "$name: the message names the file" grep -qF "database $f is corrupt" <<<"$out"
  check "$name: and how to recover" grep -q "Restore it from a backup, or move it aside" <<<"$out"
  check_fails "$name: nothing is served" "${CT[@]}" --timeout-ms 500 profiles
}
pages=$(($(stat -c %s "$T_TMP/good.db") / 4096))
echo "the database of part 1: $pages pages"
corrupt header bs=100 count=1
corrupt pages bs=4096 seek=$((pages / 2)) count=4
# Recovery as the message says: moved aside, a new database.
mv "$T_TMP/pages.db" "$T_TMP/pages.db.broken"
start_daemon "$COLLTUNED" "$T_TMP/pages.db" "$SOCK" &&
  pass "moved aside: colltuned starts on a new database" ||
  fail "moved aside: colltuned starts on a new database" "$(tail -5 "$T_TMP/daemon.log")"
check "which is empty" test "$(reports)" -eq 0
stop_daemon

echo "faults_test took $((SECONDS - START)) s"
finish
