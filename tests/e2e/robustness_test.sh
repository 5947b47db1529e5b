#!/usr/bin/env bash
# Never harm the job: whatever happens to the daemon, the table or the
# settings, the job runs to a correct end within the deadline, and every
# error the library reports reaches the application.
#
# Args: colltune libcolltune.so collective_mix errors no_hostname.so
#
# (The error-code checks run under Open MPI only: Debian's MPICH does not
# check arguments and crashes on them, with or without the shim.)
source tests/lib/testlib.sh
args_as COLLTUNE_CLI SHIM APP ERRORS NO_HOSTNAME -- "$@"
export COLLTUNE_AGENT="$COLLTUNE_CLI" COLLTUNE_CACHE_DIR="$T_TMP/cache"
ALL_MOCKUPS=$("$COLLTUNE_CLI" algorithms | awk 'NR > 1 && $2 != "default" && $3 != "native" && $3 != "job" { printf "%s%s=%s", sep, $1, $2; sep="," }')

job() {  # job [ENV=VALUE...]: the example application under the shim
  local envs=()
  for e in "$@"; do envs+=(-x "$e"); done
  run_openmpi -np 4 -x LD_PRELOAD="$SHIM" -x COLLTUNE_AGENT -x COLLTUNE_CACHE_DIR \
    "${envs[@]}" "$APP" --bytes 4096 --iters 10 2>&1
}
job_ok() {  # job_ok NAME OUTPUT EXIT [GREP...]: verified results and the messages
  local name=$1 out=$2 rc=$3
  shift 3
  if [ "$rc" -ne 0 ] || ! grep -q "results verified" <<<"$out"; then
    fail "$name" "exit $rc"$'\n'"$out"; return
  fi
  local pattern
  for pattern in "$@"; do
    if ! grep -Eq -- "$pattern" <<<"$out"; then
      fail "$name" "missing: $pattern"$'\n'"$out"; return
    fi
  done
  pass "$name"
}
init_ms() { sed -n 's/.*; init \([0-9.]*\) ms.*/\1/p' <<<"$1" | head -1; }

out=$(job COLLTUNE_SERVER="unix:$T_TMP/nobody.sock" COLLTUNE_VERBOSE=1); rc=$?
job_ok "daemon absent: defaults" "$out" $rc "table from none"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
out=$(job COLLTUNE_SERVER="127.0.0.1:$port" COLLTUNE_VERBOSE=1); rc=$?
job_ok "daemon refusing connections: defaults" "$out" $rc "table from none"

# A server that accepts and never answers, and one that answers garbage.
python3 - "$T_TMP/silent.port" "$T_TMP/garbage.port" <<'PY' &
import socket, sys, threading, time
def serve(path, reply):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
    open(path, "w").write(str(s.getsockname()[1]))
    s.settimeout(1)
    held = []
    end = time.time() + 120
    while time.time() < end:
        try:
            c, _ = s.accept()
        except OSError:
            continue
        if reply:
            try:
                c.sendall(reply); c.close()
            except OSError:
                pass
        else:
            held.append(c)
for path, reply in ((sys.argv[1], b""), (sys.argv[2], b"HTTP/1.1 200 OK\r\n\r\n\x00\xffnonsense" * 50)):
    threading.Thread(target=serve, args=(path, reply), daemon=True).start()
time.sleep(120)
PY
T_PIDS+=($!)
for i in $(seq 50); do [ -s "$T_TMP/garbage.port" ] && break; sleep 0.1; done
out=$(job COLLTUNE_SERVER="127.0.0.1:$(cat "$T_TMP/silent.port")" COLLTUNE_TIMEOUT_MS=400 COLLTUNE_VERBOSE=1); rc=$?
ms=$(init_ms "$out")
if python3 -c "import sys; sys.exit(0 if float('${ms:-99999}') < 600 else 1)"; then
  job_ok "daemon that never answers: defaults within the 400 ms deadline (init ${ms} ms)" "$out" $rc "table from none"
else
  fail "daemon that never answers: defaults within the 400 ms deadline" "init took ${ms:-?} ms"$'\n'"$out"
fi
out=$(job COLLTUNE_SERVER="127.0.0.1:$(cat "$T_TMP/garbage.port")" COLLTUNE_VERBOSE=1); rc=$?
job_ok "daemon answering garbage: defaults" "$out" $rc "table from none"

printf 'colltune-table 1\nsection 4\nallreduce 0 inf allreduce_as_reduce_bcast\nbcast 10 5 default\n' > "$T_TMP/bad.table"
out=$(job COLLTUNE_TABLE="$T_TMP/bad.table"); rc=$?
job_ok "malformed COLLTUNE_TABLE: clear error, defaults" "$out" $rc \
  "COLLTUNE_TABLE: .*bad.table: line 4: max_bytes is smaller than min_bytes"
if grep -q "ran mock-ups: allreduce" <<<"$out"; then
  fail "a malformed table is not applied in part" "$out"
else
  pass "a malformed table is not applied in part"
fi
head -c 3000 /dev/urandom > "$T_TMP/random.table"
out=$(job COLLTUNE_TABLE="$T_TMP/random.table"); rc=$?
job_ok "binary garbage as COLLTUNE_TABLE: clear error, defaults" "$out" $rc "COLLTUNE_TABLE: "
out=$(job COLLTUNE_TABLE="$T_TMP/missing.table"); rc=$?
job_ok "missing COLLTUNE_TABLE: clear error, defaults" "$out" $rc "cannot open .*missing.table"

printf 'colltune-table 1\nsection *\nbcast 0 inf bcast_as_scatter_allgather\n' > "$T_TMP/good.table"
out=$(job COLLTUNE_TABLE="$T_TMP/good.table" COLLTUNE_VERBOSE=1); rc=$?
job_ok "a good COLLTUNE_TABLE is applied" "$out" $rc "table from file" "ran mock-ups: bcast_as_scatter_allgather=[1-9]"

out=$(job COLLTUNE_FORCE="allreduce=allreduce_as_reduce_bcast,foo=bar,bcast=quick,gather=scatter_as_scatterv" COLLTUNE_VERBOSE=1); rc=$?
job_ok "COLLTUNE_FORCE: unknown names reported, the rest applied" "$out" $rc \
  "unknown collective 'foo'" "unknown algorithm 'quick'" "'scatter_as_scatterv' does not implement 'gather'" \
  "ran mock-ups: allreduce_as_reduce_bcast=[1-9]"

out=$(job COLLTUNE_SERVER="unix:$T_TMP/nobody.sock" COLLTUNE_AGENT="$T_TMP/no-agent" COLLTUNE_VERBOSE=1); rc=$?
job_ok "agent program missing: defaults" "$out" $rc "table from none"

out=$(job COLLTUNE_TIMEOUT_MS=soon COLLTUNE_MEM_BYTES=lots COLLTUNE_VERBOSE=zzz \
      COLLTUNE_REPRODUCIBLE=yes); rc=$?
job_ok "bad settings: clear errors, defaults used" "$out" $rc \
  "COLLTUNE_TIMEOUT_MS='soon' is not a number" "COLLTUNE_MEM_BYTES='lots' is not a byte count" \
  "COLLTUNE_REPRODUCIBLE='yes' is not 0 or 1"

# A table an administrator marked reproducible: no exploration, said.
printf 'colltune-table 1\nreproducible\nsection *\nbcast 0 inf bcast_as_scatter_allgather\n' > "$T_TMP/repro.table"
out=$(job COLLTUNE_TABLE="$T_TMP/repro.table" COLLTUNE_VERBOSE=1); rc=$?
job_ok "a table marked reproducible turns exploration off" "$out" $rc \
  "reproducible: no exploration" "ran mock-ups: bcast_as_scatter_allgather=[1-9]"

out=$(job COLLTUNE_DISABLE=1 COLLTUNE_FORCE="$ALL_MOCKUPS"); rc=$?
if [ $rc -eq 0 ] && grep -q "results verified" <<<"$out" && ! grep -q "colltune:" <<<"$out"; then
  pass "COLLTUNE_DISABLE=1: pure pass-through, silent"
else
  fail "COLLTUNE_DISABLE=1: pure pass-through, silent" "$out"
fi

# A budget too small for the mock-up: every rank falls back, said once.
out=$(job COLLTUNE_MEM_BYTES=64 COLLTUNE_FORCE=bcast=bcast_as_scatter_allgather COLLTUNE_VERBOSE=1); rc=$?
job_ok "over-budget mock-up: default runs, said once" "$out" $rc \
  "bcast_as_scatter_allgather cannot run a bcast call" "not eligible: bcast_as_scatter_allgather=[1-9]"
n=$(grep -c "cannot run a bcast call" <<<"$out")
[ "$n" = 1 ] && pass "the fallback is reported once" || fail "the fallback is reported once" "$n times"$'\n'"$out"

out=$(LD_PRELOAD="$SHIM" /bin/true 2>&1) && pass "preloading into a non-MPI program" || fail "preloading into a non-MPI program" "$out"
out=$(LD_PRELOAD="$SHIM" COLLTUNE_FORCE=allreduce=allreduce_as_reduce_bcast COLLTUNE_VERBOSE=1 \
      timeout 60 mpirun.openmpi -np 2 -x COLLTUNE_AGENT "$APP" --bytes 512 --iters 5 2>&1); rc=$?
job_ok "LD_PRELOAD exported to mpirun itself" "$out" $rc "ran mock-ups: allreduce_as_reduce_bcast=[1-9]"

# A layout that cannot be told: one node, and the shim says why.
out=$(run_openmpi -np 4 -x LD_PRELOAD="$NO_HOSTNAME:$SHIM" -x NO_HOSTNAME_RANK=2 \
      -x COLLTUNE_AGENT -x COLLTUNE_CACHE_DIR -x COLLTUNE_SERVER="unix:$T_TMP/nobody.sock" \
      -x COLLTUNE_VERBOSE=1 "$APP" --bytes 4096 --iters 10 2>&1); rc=$?
job_ok "a host name that cannot be read: one node, said" "$out" $rc \
  "on 4 processes, 1 nodes" "node layout: the host name of 1 of 4 processes could not be read"
out=$(cd "$T_TMP" && LD_PRELOAD="$SHIM" COLLTUNE_SERVER="unix:$T_TMP/nobody.sock" \
      COLLTUNE_VERBOSE=1 timeout 60 "$APP" --bytes 4096 --iters 10 2>&1); rc=$?
job_ok "a singleton without a launcher: one node, said" "$out" $rc \
  "on 1 processes, 1 nodes" "node layout: a single process started without a launcher"

out=$(run_openmpi -np 3 "$ERRORS" 2>&1)
check "errors are returned (no shim)" grep -q "errors returned" <<<"$out"
out=$(run_openmpi -np 3 -x LD_PRELOAD="$SHIM" -x COLLTUNE_FORCE="$ALL_MOCKUPS" "$ERRORS" 2>&1)
if grep -q "errors returned" <<<"$out"; then
  pass "errors are returned with every mock-up forced (Open MPI)"
else
  fail "errors are returned with every mock-up forced (Open MPI)" "$out"
fi
# Open MPI's own algorithms forced, one per collective that has one needing
# no per-call check: after a valid call made its shadow, the invalid call
# goes straight there (Runtime::kForced), and the user's handler still
# answers with the shadow's error.
NATIVES=$("$COLLTUNE_CLI" algorithms | awk '$3 == "native" && /Open MPI/ && $2 !~ /_seg|two_proc|han|default/ && !seen[$1]++ { printf "%s%s=%s", sep, $1, $2; sep="," }')
out=$(run_openmpi -np 3 -x LD_PRELOAD="$SHIM" -x COLLTUNE_FORCE="$NATIVES" -x COLLTUNE_VERBOSE=1 \
      "$ERRORS" --valid-first 2>&1)
if grep -q "errors returned" <<<"$out" && [ "$(grep -o "=native:" <<<"$NATIVES" | wc -l)" -ge 10 ]; then
  pass "errors are returned with Open MPI's algorithms forced, after a valid call of each"
else
  fail "errors are returned with Open MPI's algorithms forced, after a valid call of each" \
    "$NATIVES"$'\n'"$out"
fi
finish
